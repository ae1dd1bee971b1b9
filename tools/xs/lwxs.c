/*
 * lwxs: a small XS host for running and measuring lwar on the XS engine.
 *
 * It runs script files in one machine whose slot and chunk heaps are fixed,
 * sized like the ESP32 build, so that an overrun aborts instead of growing.
 * Scripts get a clock, a periodic tick and one UDP socket bound to
 * 127.0.0.1. README.md documents the options and the script API.
 */

#include "xsAll.h"
#include "xsScript.h"
#include "xs.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* ESP32 creation in the Moddable SDK (examples/manifest_base.json,
   "platforms" > "esp32" > "creation"; keys from the base "creation"). */
#define ESP32_CHUNK_BYTES 78848
#define ESP32_HEAP_SLOTS 4928
#define ESP32_STACK_SLOTS 512
#define ESP32_RUNTIME_KEYS 32

#define EXIT_ERROR 1
#define EXIT_USAGE 2
#define EXIT_LIMIT 3

#define MAX_DATAGRAM 65536
#define MAX_DATAGRAMS_PER_TURN 64
/* Peers whose address string is kept, so that receiving allocates nothing. */
#define ADDRESS_CACHE_SIZE 16

extern txInteger _xsmcGetBuffer(txMachine* the, txSlot* slot, void** data, txUnsigned* count, txBoolean writable);

typedef struct {
	txSize slots;
	txSize chunks;
	txSize stack;
	txSize keys;
	int verbose;
} Budget;

typedef struct {
	txSize slots;
	txSize chunks;
	txID keys;
} Usage;

static struct {
	Budget budget;
	Usage base;
	txSize maxSlots;
	txSize maxChunks;
	char** paths;
	int pathCount;
	char** args;
	int argCount;
	txScript** scripts;
	int aborting;
	volatile sig_atomic_t looping;
	volatile sig_atomic_t stopped;
	volatile sig_atomic_t exitCode;
	txSlot tick;
	int hasTick;
	double interval;
	double next;
	int fd;
	txSlot rxBuffer;
	txSlot rxHandler;
	struct {
		uint32_t address;
		txSlot string;
	} addresses[ADDRESS_CACHE_SIZE];
	int addressCount;
	int addressNext;
	unsigned long received;
	unsigned long sent;
	unsigned long dropped;
} gHost;

static double lwNow(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec * 1000.0) + ((double)ts.tv_nsec / 1000000.0);
}

/* PLATFORM */

void fxCreateMachinePlatform(txMachine* the)
{
	the->waiterCondition = C_NULL;
	the->waiterData = C_NULL;
	the->waiterLink = C_NULL;
	the->promiseJobs = 0;
}

void fxDeleteMachinePlatform(txMachine* the)
{
}

void fxQueuePromiseJobs(txMachine* the)
{
	the->promiseJobs = 1;
}

static void lwReportException(txMachine* the, const char* label)
{
	txSlot exception = mxException;
	mxException = mxUndefined;
	fprintf(stderr, "lwxs: %s: ", label);
	mxTry(the) {
		txString string = C_NULL;
		if (exception.kind == XS_REFERENCE_KIND) {
			mxPushSlot(&exception);
			mxGetID(mxID(_stack));
			if ((the->stack->kind == XS_STRING_KIND) || (the->stack->kind == XS_STRING_X_KIND))
				string = the->stack->value.string;
			else
				mxPop();
		}
		if (!string) {
			mxPushSlot(&exception);
			string = fxToString(the, the->stack);
		}
		fprintf(stderr, "%s\n", string);
		mxPop();
	}
	mxCatch(the) {
		fprintf(stderr, "(the exception cannot be converted to a string)\n");
	}
}

static void lwReportHeaps(txMachine* the)
{
	fprintf(stderr, "lwxs: slots %ld used of %ld (base %ld, budget %ld); chunks %ld used of %ld bytes (base %ld, budget %ld)\n",
		(long)the->currentHeapCount, (long)the->maximumHeapCount, (long)gHost.base.slots, (long)gHost.budget.slots,
		(long)the->currentChunksSize, (long)the->maximumChunksSize, (long)gHost.base.chunks, (long)gHost.budget.chunks);
}

void fxAbort(txMachine* the, int status)
{
	if (gHost.aborting)
		_exit(EXIT_ERROR);
	gHost.aborting = 1;
	fflush(stdout);
	switch (status) {
	case XS_NOT_ENOUGH_MEMORY_EXIT:
		fprintf(stderr, "lwxs: memory full: the %s heap is exhausted and the heaps are fixed (raise --slots or --chunks)\n",
			the->freeHeap ? "chunk" : "slot");
		lwReportHeaps(the);
		exit(EXIT_LIMIT);
	case XS_STACK_OVERFLOW_EXIT:
		fprintf(stderr, "lwxs: stack overflow: the stack holds %ld slots (raise --stack)\n", (long)gHost.budget.stack);
		exit(EXIT_LIMIT);
	case XS_NO_MORE_KEYS_EXIT:
		fprintf(stderr, "lwxs: not enough keys: %ld keys can be created at run time (raise --keys)\n", (long)gHost.budget.keys);
		exit(EXIT_LIMIT);
	case XS_UNHANDLED_EXCEPTION_EXIT:
		lwReportException(the, "uncaught exception");
		exit(EXIT_ERROR);
	case XS_UNHANDLED_REJECTION_EXIT:
		lwReportException(the, "unhandled rejection");
		exit(EXIT_ERROR);
	default:
		fprintf(stderr, "lwxs: fatal error %d\n", status);
		exit(EXIT_ERROR);
	}
}

static void lwRunJobs(txMachine* the)
{
	do {
		while (the->promiseJobs) {
			the->promiseJobs = 0;
			fxRunPromiseJobs(the);
		}
		fxEndJob(the);
	} while (the->promiseJobs);
	/* like Node: a rejection still unhandled once the jobs are drained is fatal */
	fxCheckUnhandledRejections(the, 1);
}

/* SCRIPT LOADING */

static void lwReportParserError(void* console, txString path, txInteger line, txString format, c_va_list arguments)
{
	fprintf(stderr, "%s:%d: error: ", path ? path : "?", (int)line);
	vfprintf(stderr, format, arguments);
	fputc('\n', stderr);
}

static txScript* lwParse(txMachine* the, const char* path)
{
	txParser _parser;
	txParser* parser = &_parser;
	txParserJump jump;
	txScript* volatile script = C_NULL;
	FILE* volatile file;
	fxInitializeParser(parser, the, the->parserBufferSize, the->parserTableModulo);
	parser->firstJump = &jump;
	parser->reportError = lwReportParserError;
	file = fopen(path, "r");
	if (c_setjmp(jump.jmp_buf) == 0) {
		mxParserThrowElse(file);
		parser->path = parser->source = fxNewParserSymbol(parser, (txString)path);
		fxParserTree(parser, file, (txGetter)fgetc, mxProgramFlag | mxDebugFlag, C_NULL);
		fclose(file);
		file = C_NULL;
		fxParserHoist(parser);
		fxParserBind(parser);
		if (parser->errorCount == 0)
			script = fxParserCode(parser);
	}
	else if (parser->errorCount == 0)
		fprintf(stderr, "lwxs: cannot read %s: %s\n", path, strerror(parser->error));
	if (file)
		fclose(file);
	fxTerminateParser(parser);
	return script;
}

/* On the device, preloaded byte code and string literals stay in flash.
   Turning the function and string opcodes into their archive forms makes
   them point into the script buffer here too, instead of being copied into
   the chunk heap when they run. The symbols become machine keys once, as
   the XS linker does at build time. */
static void lwArchive(txMachine* the, txScript* script, const char* path)
{
	txByte* p = (txByte*)script->symbolsBuffer;
	txByte* q;
	txID count, index;
	txID* ids;
	mxDecodeID(p, count);
	ids = c_malloc(count * sizeof(txID));
	if (!ids)
		fxAbort(the, XS_NOT_ENOUGH_MEMORY_EXIT);
	ids[0] = XS_NO_ID;
	for (index = 1; index < count; index++) {
		ids[index] = fxNewNameC(the, (txString)p);
		p += c_strlen((char*)p) + 1;
	}
	fxNewNameC(the, (txString)path);
	p = (txByte*)script->codeBuffer;
	q = p + script->codeSize;
	while (p < q) {
		txU1 code = *(txU1*)p;
		txS1 size = gxCodeSizes[code];
		if ((XS_CODE_CODE_1 <= code) && (code <= XS_CODE_CODE_4))
			*p = (txByte)(code + (XS_CODE_CODE_ARCHIVE_1 - XS_CODE_CODE_1));
		else if ((XS_CODE_STRING_1 <= code) && (code <= XS_CODE_STRING_4))
			*p = (txByte)(code + (XS_CODE_STRING_ARCHIVE_1 - XS_CODE_STRING_1));
		if (0 < size)
			p += size;
		else if (0 == size) {
			txID id;
			p++;
			mxDecodeID(p, id);
			if (id != XS_NO_ID) {
				id = ids[id];
				p -= sizeof(txID);
				mxEncodeID(p, id);
			}
		}
		else if (-1 == size) {
			txU1 length;
			p++;
			length = *(txU1*)p;
			p += 1 + length;
		}
		else if (-2 == size) {
			txU2 length;
			p++;
			mxDecode2(p, length);
			p += length;
		}
		else {
			txS4 length;
			p++;
			mxDecode4(p, length);
			p += length;
		}
	}
	c_free(ids);
	c_free(script->symbolsBuffer);
	script->symbolsBuffer = C_NULL;
	script->symbolsSize = 0;
}

static void lwRunScript(txMachine* the, txScript* script, const char* path)
{
	txSlot* realm = mxProgram.value.reference->next->value.module.realm;
	mxModuleInstanceInternal(mxProgram.value.reference)->value.module.id = fxID(the, (txString)path);
	fxRunScript(the, script, mxRealmGlobal(realm), C_NULL, mxRealmClosures(realm)->value.reference, C_NULL, mxProgram.value.reference);
	mxPullSlot(mxResult);
}

/* SCRIPT API */

static void lw_print(txMachine* the)
{
	txInteger count = xsToInteger(xsArgc), index;
	for (index = 0; index < count; index++) {
		if (index)
			fputc(' ', stdout);
		fputs(xsToString(xsArg(index)), stdout);
	}
	fputc('\n', stdout);
	fflush(stdout);
}

static void lw_gc(txMachine* the)
{
	xsCollectGarbage();
}

static void lw_slotsUsed(txMachine* the)
{
	xsResult = xsInteger(the->currentHeapCount);
}

static void lw_chunksUsed(txMachine* the)
{
	xsResult = xsInteger(the->currentChunksSize);
}

static void lw_collections(txMachine* the)
{
	xsResult = xsInteger(the->garbageCollectionCount);
}

/* Emulated floating-point operations: every arithmetic, comparison or test
   the interpreter does on a double, counted by mxFloatingPointOp in
   instrumented builds (mxInstrument). 32 bits: it wraps after 2^31. */
static void lw_floatOps(txMachine* the)
{
	xsResult = xsInteger(the->floatingPointOps);
}

static void lw_now(txMachine* the)
{
	xsResult = xsNumber(lwNow());
}

static void lw_run(txMachine* the)
{
	xsNumberValue interval;
	if (gHost.hasTick) {
		xsForget(gHost.tick);
		gHost.hasTick = 0;
	}
	if ((xsToInteger(xsArgc) < 1) || xsTest(xsArg(0)) == 0)
		return;
	if (!xsIsInstanceOf(xsArg(0), xsFunctionPrototype))
		xsTypeError("tick is not a function");
	interval = (xsToInteger(xsArgc) > 1) ? xsToNumber(xsArg(1)) : 0;
	if (!(interval >= 1))
		xsRangeError("interval must be at least 1 ms");
	gHost.tick = xsArg(0);
	xsRemember(gHost.tick);
	gHost.hasTick = 1;
	gHost.interval = interval;
	gHost.next = lwNow() + interval;
}

static void lw_stop(txMachine* the)
{
	gHost.stopped = 1;
	gHost.exitCode = (xsToInteger(xsArgc) > 0) ? xsToInteger(xsArg(0)) : 0;
}

static void lw_udpOpen(txMachine* the)
{
	struct sockaddr_in address;
	socklen_t length = sizeof(address);
	txInteger port = xsToInteger(xsArg(0));
	void* data;
	txUnsigned size;
	int fd;
	if (gHost.fd >= 0)
		xsUnknownError("the socket is already open");
	if ((port < 0) || (65535 < port))
		xsRangeError("invalid port %d", port);
	_xsmcGetBuffer(the, &xsArg(1), &data, &size, 1);
	if (size == 0)
		xsRangeError("empty buffer");
	if (!xsIsInstanceOf(xsArg(2), xsFunctionPrototype))
		xsTypeError("handler is not a function");
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		xsUnknownError("socket: %s", strerror(errno));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	c_memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	address.sin_port = htons((uint16_t)port);
	if ((bind(fd, (struct sockaddr*)&address, sizeof(address)) < 0) || (getsockname(fd, (struct sockaddr*)&address, &length) < 0)) {
		int error = errno;
		close(fd);
		xsUnknownError("bind 127.0.0.1:%d: %s", port, strerror(error));
	}
	gHost.fd = fd;
	gHost.rxBuffer = xsArg(1);
	xsRemember(gHost.rxBuffer);
	gHost.rxHandler = xsArg(2);
	xsRemember(gHost.rxHandler);
	xsResult = xsInteger(ntohs(address.sin_port));
}

/* The same address always yields the same string value. */
static void lwAddressString(txMachine* the, uint32_t address, txSlot* result)
{
	char text[INET_ADDRSTRLEN];
	struct in_addr in;
	int index;
	for (index = 0; index < gHost.addressCount; index++) {
		if (gHost.addresses[index].address == address) {
			*result = xsAccess(gHost.addresses[index].string);
			return;
		}
	}
	in.s_addr = htonl(address);
	inet_ntop(AF_INET, &in, text, sizeof(text));
	*result = xsString(text);
	index = gHost.addressNext;
	gHost.addressNext = (index + 1) % ADDRESS_CACHE_SIZE;
	if (index < gHost.addressCount)
		xsForget(gHost.addresses[index].string);
	else
		gHost.addressCount++;
	gHost.addresses[index].address = address;
	gHost.addresses[index].string = *result;
	xsRemember(gHost.addresses[index].string);
}

static void lw_udpSend(txMachine* the)
{
	struct sockaddr_in address;
	void* data;
	txUnsigned size;
	txInteger length, port;
	uint32_t host;
	ssize_t sent;
	if (gHost.fd < 0)
		xsUnknownError("the socket is not open");
	length = xsToInteger(xsArg(1));
	port = xsToInteger(xsArg(3));
	if (xsTypeOf(xsArg(2)) == xsStringType) {
		struct in_addr in;
		if (inet_pton(AF_INET, xsToString(xsArg(2)), &in) != 1)
			xsRangeError("invalid address %s", xsToString(xsArg(2)));
		host = ntohl(in.s_addr);
	}
	else {
		xsNumberValue number = xsToNumber(xsArg(2));
		if (!((0 <= number) && (number <= 4294967295.0)) || (number != (uint32_t)number))
			xsRangeError("invalid address");
		host = (uint32_t)number;
	}
	if ((host >> 24) != 127)
		xsRangeError("only 127.0.0.0/8 addresses are allowed");
	if ((port <= 0) || (65535 < port))
		xsRangeError("invalid port %d", port);
	c_memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(host);
	address.sin_port = htons((uint16_t)port);
	/* last, as running script code (valueOf) could move the buffer */
	_xsmcGetBuffer(the, &xsArg(0), &data, &size, 0);
	if ((length < 0) || ((txUnsigned)length > size))
		xsRangeError("length %d out of range", length);
	sent = sendto(gHost.fd, data, (size_t)length, 0, (struct sockaddr*)&address, sizeof(address));
	if (sent < 0) {
		if ((errno != EAGAIN) && (errno != EWOULDBLOCK) && (errno != ENOBUFS) && (errno != ECONNREFUSED))
			xsUnknownError("%s", strerror(errno));
		sent = 0;
	}
	else
		gHost.sent++;
	xsResult = xsInteger((txInteger)sent);
}

static void lw_udpClose(txMachine* the)
{
	if (gHost.fd >= 0) {
		close(gHost.fd);
		gHost.fd = -1;
		xsForget(gHost.rxBuffer);
		xsForget(gHost.rxHandler);
	}
}

static void lwDefine(txMachine* the, txSlot* target, const char* name, xsCallback callback, txInteger length)
{
	/* XS prefixes the messages of the errors a host function throws with its name */
	xsVar(1) = xsNewHostFunctionObject(callback, length, xsID((txString)name));
	xsDefine(*target, xsID((txString)name), xsVar(1), xsDontEnum);
}

/* hosts/moddable/kernels.c (modules/kernels/loops.c): the server's native loops, as xs.kernels (modules/native.ts) */
extern void xs_lwar_plan(txMachine* the);
extern void xs_lwar_commit(txMachine* the);
extern void xs_lwar_pack(txMachine* the);
extern void xs_lwar_sync(txMachine* the);
extern void xs_lwar_notify(txMachine* the);
extern void xs_lwar_mark(txMachine* the);
extern void xs_lwar_ship(txMachine* the);
extern void xs_lwar_game(txMachine* the);
extern void xs_lwar_transport(txMachine* the);
extern void xs_lwar_name(txMachine* the);

static void lwBuildGlobals(txMachine* machine)
{
	int index;
	xsBeginHost(machine);
	xsVars(3);
	xsVar(0) = xsNewObject();
	lwDefine(the, &xsVar(0), "gc", lw_gc, 0);
	lwDefine(the, &xsVar(0), "slotsUsed", lw_slotsUsed, 0);
	lwDefine(the, &xsVar(0), "chunksUsed", lw_chunksUsed, 0);
	lwDefine(the, &xsVar(0), "collections", lw_collections, 0);
	lwDefine(the, &xsVar(0), "floatOps", lw_floatOps, 0);
	lwDefine(the, &xsVar(0), "now", lw_now, 0);
	lwDefine(the, &xsVar(0), "run", lw_run, 2);
	lwDefine(the, &xsVar(0), "stop", lw_stop, 1);
	lwDefine(the, &xsVar(0), "udpOpen", lw_udpOpen, 3);
	lwDefine(the, &xsVar(0), "udpSend", lw_udpSend, 4);
	lwDefine(the, &xsVar(0), "udpClose", lw_udpClose, 0);
	xsVar(1) = xsInteger(0);
	xsDefine(xsVar(0), xsID("baseSlots"), xsVar(1), xsDontEnum);
	xsDefine(xsVar(0), xsID("baseChunks"), xsVar(1), xsDontEnum);
	xsDefine(xsVar(0), xsID("maxSlots"), xsVar(1), xsDontEnum);
	xsDefine(xsVar(0), xsID("maxChunks"), xsVar(1), xsDontEnum);
	xsVar(2) = xsNewObject();
	lwDefine(the, &xsVar(2), "plan", xs_lwar_plan, 6);
	lwDefine(the, &xsVar(2), "commit", xs_lwar_commit, 7);
	lwDefine(the, &xsVar(2), "pack", xs_lwar_pack, 9);
	lwDefine(the, &xsVar(2), "sync", xs_lwar_sync, 6);
	lwDefine(the, &xsVar(2), "notify", xs_lwar_notify, 7);
	lwDefine(the, &xsVar(2), "mark", xs_lwar_mark, 6);
	lwDefine(the, &xsVar(2), "ship", xs_lwar_ship, 6);
	lwDefine(the, &xsVar(2), "game", xs_lwar_game, 6);
	lwDefine(the, &xsVar(2), "transport", xs_lwar_transport, 11);
	lwDefine(the, &xsVar(2), "name", xs_lwar_name, 9);
	xsDefine(xsVar(0), xsID("kernels"), xsVar(2), xsDontEnum);
	xsVar(2) = xsNewArray(0);
	for (index = 0; index < gHost.argCount; index++) {
		xsVar(1) = xsString(gHost.args[index]);
		xsCall1(xsVar(2), xsID("push"), xsVar(1));
	}
	xsDefine(xsVar(0), xsID("args"), xsVar(2), xsDontEnum);
	xsDefine(xsGlobal, xsID("xs"), xsVar(0), xsDontEnum);
	xsVar(1) = xsNewHostFunctionObject(lw_print, 1, xsID("print"));
	xsDefine(xsGlobal, xsID("print"), xsVar(1), xsDontEnum);
	xsEndHost(machine);
}

static void lwSetNumbers(txMachine* machine)
{
	xsBeginHost(machine);
	xsVars(2);
	xsVar(0) = xsGet(xsGlobal, xsID("xs"));
	xsVar(1) = xsInteger(gHost.base.slots);
	xsDefine(xsVar(0), xsID("baseSlots"), xsVar(1), xsDontEnum | xsDontSet | xsDontDelete);
	xsVar(1) = xsInteger(gHost.base.chunks);
	xsDefine(xsVar(0), xsID("baseChunks"), xsVar(1), xsDontEnum | xsDontSet | xsDontDelete);
	xsVar(1) = xsInteger(gHost.maxSlots);
	xsDefine(xsVar(0), xsID("maxSlots"), xsVar(1), xsDontEnum | xsDontSet | xsDontDelete);
	xsVar(1) = xsInteger(gHost.maxChunks);
	xsDefine(xsVar(0), xsID("maxChunks"), xsVar(1), xsDontEnum | xsDontSet | xsDontDelete);
	xsEndHost(machine);
}

/* MACHINE */

/* Creates a machine, defines the globals and turns the scripts into keys and
   archived code; returns what that leaves in use after a full collection. */
static txMachine* lwPrepare(txCreation* creation, Usage* usage)
{
	txMachine* machine = xsCreateMachine(creation, "lwxs", C_NULL);
	int index;
	lwBuildGlobals(machine);
	xsBeginHost(machine);
	for (index = 0; index < gHost.pathCount; index++) {
		txScript* script = lwParse(the, gHost.paths[index]);
		if (!script) {
			fprintf(stderr, "lwxs: cannot load %s\n", gHost.paths[index]);
			exit(EXIT_ERROR);
		}
		lwArchive(the, script, gHost.paths[index]);
		if (gHost.scripts[index])
			fxDeleteScript(gHost.scripts[index]);
		gHost.scripts[index] = script;
	}
	xsCollectGarbage();
	xsEndHost(machine);
	usage->slots = machine->currentHeapCount;
	usage->chunks = machine->currentChunksSize;
	usage->keys = machine->keyIndex;
	return machine;
}

static txMachine* lwCreate(void)
{
	txCreation creation = {
		4 * 1024 * 1024,	/* initialChunkSize */
		1024 * 1024,		/* incrementalChunkSize */
		64 * 1024,			/* initialHeapCount */
		16 * 1024,			/* incrementalHeapCount */
		gHost.budget.stack,	/* stackCount */
		4096,				/* initialKeyCount */
		1024,				/* incrementalKeyCount */
		1993,				/* nameModulo */
		127,				/* symbolModulo */
		1024 * 1024,		/* parserBufferSize */
		1993,				/* parserTableModulo */
		0,					/* staticSize */
	};
	Usage probe, usage;
	txMachine* machine = lwPrepare(&creation, &probe);
	xsDeleteMachine(machine);

	/* The engine itself, the globals and the loaded scripts are what the
	   device keeps in flash: they come on top of the device budget. The
	   first heap slot is a header that holds no value. */
	creation.initialChunkSize = probe.chunks + gHost.budget.chunks;
	creation.incrementalChunkSize = 0;
	creation.initialHeapCount = probe.slots + gHost.budget.slots + 1;
	creation.incrementalHeapCount = 0;
	creation.initialKeyCount = probe.keys + gHost.budget.keys;
	creation.incrementalKeyCount = 0;
	machine = lwPrepare(&creation, &usage);
	if ((usage.slots != probe.slots) || (usage.chunks != probe.chunks) || (usage.keys != probe.keys))
		fprintf(stderr, "lwxs: warning: the base differs from the probe's (%ld slots, %ld chunk bytes, %ld keys instead of %ld, %ld, %ld): the budgets are off by that much\n",
			(long)usage.slots, (long)usage.chunks, (long)usage.keys, (long)probe.slots, (long)probe.chunks, (long)probe.keys);
	gHost.base = usage;
	gHost.maxSlots = machine->maximumHeapCount;
	gHost.maxChunks = machine->maximumChunksSize;
	lwSetNumbers(machine);
	machine->peakHeapCount = machine->currentHeapCount;
	machine->peakChunksSize = machine->currentChunksSize;
	machine->garbageCollectionCount = 0;
	machine->floatingPointOps = 0;
	if (gHost.budget.verbose) {
		fprintf(stderr, "lwxs: creation: %ld chunk bytes, %ld slots, %ld stack slots, %ld keys (fixed)\n",
			(long)creation.initialChunkSize, (long)creation.initialHeapCount, (long)creation.stackCount, (long)creation.initialKeyCount);
		fprintf(stderr, "lwxs: base: %ld slots, %ld chunk bytes, %ld keys (probe: %ld, %ld, %ld)\n",
			(long)usage.slots, (long)usage.chunks, (long)usage.keys, (long)probe.slots, (long)probe.chunks, (long)probe.keys);
	}
	return machine;
}

/* EVENT LOOP */

static void lwCallTick(txMachine* machine)
{
	xsBeginHost(machine);
	xsTry {
		xsCallFunction0(xsAccess(gHost.tick), xsUndefined);
	}
	xsCatch {
		fxAbort(the, XS_UNHANDLED_EXCEPTION_EXIT);
	}
	xsEndHost(machine);
	lwRunJobs(machine);
}

static void lwReceive(txMachine* machine)
{
	static txByte staging[MAX_DATAGRAM];
	int count;
	for (count = 0; (count < MAX_DATAGRAMS_PER_TURN) && (gHost.fd >= 0) && !gHost.stopped; count++) {
		struct sockaddr_in from;
		socklen_t length = sizeof(from);
		ssize_t received = recvfrom(gHost.fd, staging, sizeof(staging), 0, (struct sockaddr*)&from, &length);
		if (received < 0) {
			if ((errno == EAGAIN) || (errno == EWOULDBLOCK) || (errno == ECONNREFUSED) || (errno == EINTR))
				break;
			fprintf(stderr, "lwxs: recvfrom: %s\n", strerror(errno));
			exit(EXIT_ERROR);
		}
		xsBeginHost(machine);
		{
			void* data;
			txUnsigned size;
			xsVars(2);
			xsVar(0) = xsAccess(gHost.rxBuffer);
			_xsmcGetBuffer(the, &xsVar(0), &data, &size, 1);
			if ((size_t)received > size)
				gHost.dropped++;
			else {
				gHost.received++;
				lwAddressString(the, ntohl(from.sin_addr.s_addr), &xsVar(1));
				/* the string may have moved the buffer: look it up again */
				_xsmcGetBuffer(the, &xsVar(0), &data, &size, 1);
				c_memcpy(data, staging, (size_t)received);
				xsTry {
					xsCallFunction3(xsAccess(gHost.rxHandler), xsUndefined, xsInteger((txInteger)received), xsVar(1), xsInteger(ntohs(from.sin_port)));
				}
				xsCatch {
					fxAbort(the, XS_UNHANDLED_EXCEPTION_EXIT);
				}
			}
		}
		xsEndHost(machine);
		lwRunJobs(machine);
	}
}

static void lwLoop(txMachine* machine)
{
	gHost.looping = 1;
	while (!gHost.stopped && (gHost.hasTick || (gHost.fd >= 0))) {
		struct pollfd poller;
		int timeout = -1, ready;
		double now;
		if (gHost.hasTick) {
			double wait = gHost.next - lwNow();
			timeout = (wait <= 0) ? 0 : (int)ceil(wait);
		}
		poller.fd = gHost.fd;
		poller.events = POLLIN;
		poller.revents = 0;
		ready = poll(&poller, (gHost.fd >= 0) ? 1 : 0, timeout);
		if ((ready < 0) && (errno != EINTR)) {
			fprintf(stderr, "lwxs: poll: %s\n", strerror(errno));
			exit(EXIT_ERROR);
		}
		if ((ready > 0) && (poller.revents & POLLIN))
			lwReceive(machine);
		now = lwNow();
		if (gHost.hasTick && !gHost.stopped && (gHost.next <= now)) {
			gHost.next += gHost.interval;
			if (gHost.next <= now)
				gHost.next = now + gHost.interval;
			lwCallTick(machine);
		}
	}
}

/* MAIN */

/* While the loop runs, SIGINT and SIGTERM end it, so that the summary line
   still prints; otherwise, or the second time, they end the process. */
static void lwSignal(int signal)
{
	if (!gHost.looping || gHost.stopped)
		_exit(128 + signal);
	gHost.stopped = 1;
	gHost.exitCode = 128 + signal;
}

static void lwUsage(FILE* file)
{
	fprintf(file,
		"usage: lwxs [options] script.js... [-- args...]\n"
		"Runs scripts in one XS machine with fixed, ESP32-sized heaps.\n"
		"  --slots N    slot heap for scripts, in slots (default %d)\n"
		"  --chunks N   chunk heap for scripts, in bytes (default %d)\n"
		"  --stack N    stack, in slots (default %d)\n"
		"  --keys N     keys that scripts may create at run time (default %d)\n"
		"  --verbose    print the creation and the base usage to stderr\n"
		"  --help       print this help\n"
		"The budgets come on top of what the engine, the globals and the loaded\n"
		"code use (kept in flash on the device). Arguments after -- are in xs.args.\n"
		"Exit status: 0, or xs.stop(code); 1 error; 2 usage; 3 heap, stack or keys exhausted.\n",
		ESP32_HEAP_SLOTS, ESP32_CHUNK_BYTES, ESP32_STACK_SLOTS, ESP32_RUNTIME_KEYS);
}

static txSize lwParseSize(const char* option, const char* value)
{
	char* end;
	long result;
	if (!value) {
		fprintf(stderr, "lwxs: %s needs a value\n", option);
		exit(EXIT_USAGE);
	}
	errno = 0;
	result = strtol(value, &end, 10);
	if (errno || (*end != 0) || (result < 0) || (result > 0x3FFFFFFF)) {
		fprintf(stderr, "lwxs: invalid %s: %s\n", option, value);
		exit(EXIT_USAGE);
	}
	return (txSize)result;
}

static void lwSummary(txMachine* the, double started)
{
	fprintf(stderr, "lwxs: exit %d in %.0f ms; slots %ld peak %ld of budget %ld; chunks %ld peak %ld of budget %ld bytes; %d collections; udp %lu in, %lu out, %lu dropped\n",
		gHost.exitCode, lwNow() - started,
		(long)(the->currentHeapCount - gHost.base.slots), (long)(the->peakHeapCount - gHost.base.slots), (long)gHost.budget.slots,
		(long)(the->currentChunksSize - gHost.base.chunks), (long)(the->peakChunksSize - gHost.base.chunks), (long)gHost.budget.chunks,
		(int)the->garbageCollectionCount, gHost.received, gHost.sent, gHost.dropped);
}

int main(int argc, char* argv[])
{
	double started = lwNow();
	txMachine* machine;
	int index;
	gHost.budget.slots = ESP32_HEAP_SLOTS;
	gHost.budget.chunks = ESP32_CHUNK_BYTES;
	gHost.budget.stack = ESP32_STACK_SLOTS;
	gHost.budget.keys = ESP32_RUNTIME_KEYS;
	gHost.fd = -1;
	gHost.paths = c_calloc(argc, sizeof(char*));
	gHost.scripts = c_calloc(argc, sizeof(txScript*));
	for (index = 1; index < argc; index++) {
		char* arg = argv[index];
		if (!strcmp(arg, "--")) {
			gHost.args = argv + index + 1;
			gHost.argCount = argc - index - 1;
			break;
		}
		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			lwUsage(stdout);
			return 0;
		}
		else if (!strcmp(arg, "--slots"))
			gHost.budget.slots = lwParseSize(arg, argv[++index]);
		else if (!strcmp(arg, "--chunks"))
			gHost.budget.chunks = lwParseSize(arg, argv[++index]);
		else if (!strcmp(arg, "--stack"))
			gHost.budget.stack = lwParseSize(arg, argv[++index]);
		else if (!strcmp(arg, "--keys"))
			gHost.budget.keys = lwParseSize(arg, argv[++index]);
		else if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v"))
			gHost.budget.verbose = 1;
		else if (arg[0] == '-') {
			fprintf(stderr, "lwxs: unknown option %s\n", arg);
			lwUsage(stderr);
			return EXIT_USAGE;
		}
		else
			gHost.paths[gHost.pathCount++] = arg;
	}
	if (gHost.pathCount == 0) {
		lwUsage(stderr);
		return EXIT_USAGE;
	}
	if (gHost.budget.stack < 64) {
		fprintf(stderr, "lwxs: --stack must be at least 64\n");
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction action;
		c_memset(&action, 0, sizeof(action));
		action.sa_handler = lwSignal;
		sigemptyset(&action.sa_mask);
		sigaction(SIGINT, &action, C_NULL);
		sigaction(SIGTERM, &action, C_NULL);
	}

	machine = lwCreate();
	for (index = 0; (index < gHost.pathCount) && !gHost.stopped; index++) {
		xsBeginHost(machine);
		xsTry {
			lwRunScript(the, gHost.scripts[index], gHost.paths[index]);
		}
		xsCatch {
			fxAbort(the, XS_UNHANDLED_EXCEPTION_EXIT);
		}
		xsEndHost(machine);
		lwRunJobs(machine);
	}
	lwLoop(machine);
	lwRunJobs(machine);
	fflush(stdout);
	lwSummary(machine, started);
	if (gHost.fd >= 0)
		close(gHost.fd);
	xsDeleteMachine(machine);
	for (index = 0; index < gHost.pathCount; index++)
		fxDeleteScript(gHost.scripts[index]);
	c_free(gHost.scripts);
	c_free(gHost.paths);
	return gHost.exitCode;
}
