/*
	The board's network path, in fixed memory: one UDP socket and a small TCP server,
	written on lwIP's raw API for ESP32 and on POSIX sockets for the Linux simulator. The
	JavaScript side is net.js (the bindings), host.ts (UDP) and web.ts (TCP).

	Memory. Everything is allocated once, by udpOpen() and tcpListen():
	- UDP: a ring of `slots` datagram slots, each MAX_DATAGRAM bytes plus the sender's
	  address and port. On ESP32, lwIP's thread copies each datagram into the ring and frees
	  its pbuf at once; the XS task drains the ring into the server's receive buffer with
	  udpNext(). A full ring drops the datagram and counts it: nothing queues without bound.
	  On Linux the kernel's socket buffer is the queue: udpNext() reads it directly.
	- TCP: `connections` slots, each with a receive ring of `rxBytes` bytes (a power of 2).
	  A connection over the limit is refused at accept (reset), never queued. Data that does
	  not fit a ring stays with lwIP (ERR_MEM: it offers it again later), bounded by the TCP
	  window. Each connection may have at most `window` bytes sent and not yet acknowledged:
	  tcpWrite() refuses (returns 0) what would go past that.

	Threads (ESP32). lwIP's callbacks run in its thread (tcpip_thread). Every lwIP call made
	here from the XS task goes through tcpip_api_call(), which runs it in lwIP's thread or
	under its core lock (CONFIG_LWIP_TCPIP_CORE_LOCKING): never beside a callback. A pcb
	pointer is dropped in the error callback (lwIP has freed it by then) and never used
	after. The only state the two threads share outside that lock is single-producer,
	single-consumer: ring indices and an event mask, read and written with atomics. Nothing
	in lwIP's thread waits for the XS task.

	Errors: calls that our own code misuses throw; what the network does is a return value
	or a counter.
*/

#include "xsmc.h"
#include "xsHost.h"
#include "mc.defines.h"

#include <stdint.h>
#include <string.h>

#ifndef c_calloc
	#include <stdlib.h>
	#define c_calloc calloc
	#define c_free free
#endif
#ifndef c_strlen
	#define c_strlen strlen
#endif

#define MAX_DATAGRAM 512
/* udpNext returns length | port << UDP_LENGTH_BITS: MAX_DATAGRAM must fit below. */
#define UDP_LENGTH_BITS 10
#if MAX_DATAGRAM >= (1 << UDP_LENGTH_BITS)
#error "MAX_DATAGRAM does not fit udpNext's length bits"
#endif
#define MAX_CONNECTIONS 16

#if ESP32
	#include "lwip/ip_addr.h"
	#include "lwip/pbuf.h"
	#include "lwip/tcp.h"
	#include "lwip/udp.h"
	#include "lwip/priv/tcpip_priv.h"
#else
	#include <arpa/inet.h>
	#include <errno.h>
	#include <fcntl.h>
	#include <netinet/in.h>
	#include <netinet/tcp.h>
	#include <sys/ioctl.h>
	#include <sys/socket.h>
	#include <unistd.h>
	#include <sys/uio.h>
	#include <linux/sockios.h>
#endif

#define LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)

// ------------------------------------------------------------------ counters

/* The order of udpStats()/tcpStats(): see net.d.ts. */
enum {
	UdpReceived, UdpRingFull, UdpTooLong, UdpSendErrors, UdpHighWater, UdpCounters
};
enum {
	TcpAccepted, TcpRefused, TcpResets, TcpHeld, TcpClosed, TcpAborted, TcpWriteErrors, TcpCounters
};

static uint32_t gUdpCounters[UdpCounters];
static uint32_t gTcpCounters[TcpCounters];

static void copyCounters(xsMachine *the, const uint32_t *counters, int count)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	if (size < count * sizeof(uint32_t))
		xsRangeError("stats: a Uint32Array of %d is needed", count);
	memcpy(data, counters, count * sizeof(uint32_t));
}

void xs_lwar_udp_stats(xsMachine *the)
{
	copyCounters(the, gUdpCounters, UdpCounters);
}

void xs_lwar_tcp_stats(xsMachine *the)
{
	copyCounters(the, gTcpCounters, TcpCounters);
}

// ------------------------------------------------------------------ UDP

typedef struct {
	uint32_t ip;		// network byte order
	uint16_t port;
	uint16_t length;
	uint8_t data[MAX_DATAGRAM];
} Datagram;

#if ESP32
static struct udp_pcb *gUdp = NULL;
static Datagram *gRing = NULL;
static uint32_t gRingSlots = 0;
static uint32_t gRingIn = 0;		// written by lwIP's thread
static uint32_t gRingOut = 0;		// written by the XS task

static void onDatagram(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr, u16_t port)
{
	uint32_t in = gRingIn;
	uint32_t used = in - LOAD(&gRingOut);
	if (p->tot_len > MAX_DATAGRAM)
		gUdpCounters[UdpTooLong]++;
	else if (used >= gRingSlots)
		gUdpCounters[UdpRingFull]++;
	else {
		Datagram *d = &gRing[in % gRingSlots];
		d->length = pbuf_copy_partial(p, d->data, p->tot_len, 0);
		d->ip = ip4_addr_get_u32(ip_2_ip4(addr));
		d->port = port;
		STORE(&gRingIn, in + 1);
		gUdpCounters[UdpReceived]++;
		if (used + 1 > gUdpCounters[UdpHighWater])
			gUdpCounters[UdpHighWater] = used + 1;
	}
	pbuf_free(p);
}

typedef struct {
	struct tcpip_api_call_data call;
	int port;
	int result;
	const uint8_t *data;
	uint32_t length;
	ip_addr_t address;
} UdpOp;

static err_t doUdpOpen(struct tcpip_api_call_data *call)
{
	UdpOp *op = (UdpOp *)call;
	gUdp = udp_new();
	if (!gUdp) {
		op->result = -1;
		return ERR_OK;
	}
	if (ERR_OK != udp_bind(gUdp, IP_ADDR_ANY, op->port)) {
		udp_remove(gUdp);
		gUdp = NULL;
		op->result = -2;
		return ERR_OK;
	}
	udp_recv(gUdp, onDatagram, NULL);
	op->result = 0;
	return ERR_OK;
}

static err_t doUdpSend(struct tcpip_api_call_data *call)
{
	UdpOp *op = (UdpOp *)call;
	struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, op->length, PBUF_RAM);
	if (!p) {
		op->result = -1;
		return ERR_OK;
	}
	memcpy(p->payload, op->data, op->length);
	op->result = (ERR_OK == udp_sendto(gUdp, p, &op->address, op->port)) ? 0 : -1;
	pbuf_free(p);
	return ERR_OK;
}
#else
static int gUdpFd = -1;
#endif

/* udpOpen(port, slots): bind the server's UDP port; `slots` datagrams wait at most. Throws if it cannot. */
void xs_lwar_udp_open(xsMachine *the)
{
	int port = xsmcToInteger(xsArg(0));
	int slots = xsmcToInteger(xsArg(1));
	if ((slots < 1) || (slots > 256))
		xsRangeError("udpOpen: slots %d (1 to 256)", slots);
#if ESP32
	if (gUdp)
		xsUnknownError("udpOpen: open already");
	gRing = c_calloc(slots, sizeof(Datagram));
	if (!gRing)
		xsUnknownError("udpOpen: no memory for %d slots", slots);
	gRingSlots = slots;
	UdpOp op;
	op.port = port;
	tcpip_api_call(doUdpOpen, &op.call);
	if (op.result < 0) {
		c_free(gRing);
		gRing = NULL;
		xsUnknownError("udpOpen: cannot bind port %d", port);
	}
#else
	if (gUdpFd >= 0)
		xsUnknownError("udpOpen: open already");
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if ((fd < 0) || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		if (fd >= 0) close(fd);
		xsUnknownError("udpOpen: cannot bind port %d", port);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	gUdpFd = fd;
#endif
}

/*
	udpNext(buffer, from): the next datagram into `buffer` (at least MAX_DATAGRAM bytes), its
	sender's IPv4 address into from[0] (network byte order). Its length | port << 10 (one
	number: the caller reads no second word), or -1.
*/
void xs_lwar_udp_next(xsMachine *the)
{
	void *data, *meta;
	xsUnsignedValue size, metaSize;
	xsmcGetBufferWritable(xsArg(0), &data, &size);
	xsmcGetBufferWritable(xsArg(1), &meta, &metaSize);
	if ((size < MAX_DATAGRAM) || (metaSize < sizeof(uint32_t)))
		xsRangeError("udpNext: buffer or address too small");
	uint32_t *from = meta;
#if ESP32
	uint32_t out = gRingOut;
	if (!gRing || (LOAD(&gRingIn) == out)) {
		xsmcSetInteger(xsResult, -1);
		return;
	}
	Datagram *d = &gRing[out % gRingSlots];
	int length = d->length;
	memcpy(data, d->data, length);
	from[0] = d->ip;
	int port = d->port;
	STORE(&gRingOut, out + 1);
	xsmcSetInteger(xsResult, length | (port << UDP_LENGTH_BITS));
#else
	for (;;) {
		struct sockaddr_in a;
		socklen_t alen = sizeof(a);
		if (gUdpFd < 0) {
			xsmcSetInteger(xsResult, -1);
			return;
		}
		// MSG_TRUNC: the datagram's real length, to count the ones that do not fit.
		ssize_t n = recvfrom(gUdpFd, data, MAX_DATAGRAM, MSG_TRUNC, (struct sockaddr *)&a, &alen);
		if (n < 0) {
			xsmcSetInteger(xsResult, -1);
			return;
		}
		if (n > MAX_DATAGRAM) {
			gUdpCounters[UdpTooLong]++;
			continue;
		}
		gUdpCounters[UdpReceived]++;
		from[0] = a.sin_addr.s_addr;
		xsmcSetInteger(xsResult, (int)n | (ntohs(a.sin_port) << UDP_LENGTH_BITS));
		return;
	}
#endif
}

/* udpSend(bytes, length, address, port): 0, or -1 (counted in UdpSendErrors) when the stack refused it. */
void xs_lwar_udp_send(xsMachine *the)
{
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	int length = xsmcToInteger(xsArg(1));
	const char *address = xsmcToString(xsArg(2));
	int port = xsmcToInteger(xsArg(3));
	int result = -1;
	if ((length < 0) || ((xsUnsignedValue)length > size) || (length > MAX_DATAGRAM))
		xsRangeError("udpSend: length %d", length);
#if ESP32
	UdpOp op;
	if (gUdp && ipaddr_aton(address, &op.address) && IP_IS_V4(&op.address)) {
		op.data = data;
		op.length = length;
		op.port = port;
		tcpip_api_call(doUdpSend, &op.call);
		result = op.result;
	}
#else
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	if ((gUdpFd >= 0) && inet_aton(address, &a.sin_addr))
		result = (sendto(gUdpFd, data, length, MSG_DONTWAIT, (struct sockaddr *)&a, sizeof(a)) == length) ? 0 : -1;
#endif
	if (result < 0)
		gUdpCounters[UdpSendErrors]++;
	xsmcSetInteger(xsResult, result);
}

#if MODDEF_LWAR_BENCH_RING
/*
	For the device bench only (bench/device/manifest.json defines lwar.bench.ring; the firmware
	does not): the UDP ring without a socket, and a datagram placed in it as onDatagram()
	places one from lwIP's thread, so that the XS task's drain can be timed with no network.
	ESP32 only: on Linux udpNext() reads the kernel's socket, and benchRingOpen() returns false.
*/

/* benchRingOpen(slots): the ring alone, bound to nothing; false where udpNext() has no ring. */
void xs_lwar_bench_ring_open(xsMachine *the)
{
#if ESP32
	int slots = xsmcToInteger(xsArg(0));
	if ((slots < 1) || (slots > 256))
		xsRangeError("benchRingOpen: slots %d (1 to 256)", slots);
	if (gRing)
		xsUnknownError("benchRingOpen: open already");
	gRing = c_calloc(slots, sizeof(Datagram));
	if (!gRing)
		xsUnknownError("benchRingOpen: no memory for %d slots", slots);
	gRingSlots = slots;
	xsmcSetTrue(xsResult);
#else
	xsmcSetFalse(xsResult);
#endif
}

/*
	benchRingPut(bytes, offset, length, ip, port, publish): bytes[offset .. offset + length)
	and its sender (ip in network byte order) into the next slot, as onDatagram() copies a
	datagram; udpNext() sees it only when `publish` is true (a dry walk writes the slot and
	leaves it unseen). The ring must have room.
*/
void xs_lwar_bench_ring_put(xsMachine *the)
{
#if ESP32
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferReadable(xsArg(0), &data, &size);
	int offset = xsmcToInteger(xsArg(1));
	int length = xsmcToInteger(xsArg(2));
	uint32_t ip = (uint32_t)xsmcToInteger(xsArg(3));
	int port = xsmcToInteger(xsArg(4));
	int publish = xsmcToBoolean(xsArg(5));
	if ((offset < 0) || (length < 0) || (length > MAX_DATAGRAM) || ((xsUnsignedValue)(offset + length) > size))
		xsRangeError("benchRingPut: %d bytes at %d of %d", length, offset, (int)size);
	uint32_t in = gRingIn;
	if (!gRing || ((in - LOAD(&gRingOut)) >= gRingSlots))
		xsUnknownError("benchRingPut: no ring, or no room in it");
	Datagram *d = &gRing[in % gRingSlots];
	memcpy(d->data, (uint8_t *)data + offset, length);
	d->length = length;
	d->ip = ip;
	d->port = port;
	if (publish)
		STORE(&gRingIn, in + 1);
#endif
}
#endif

// ------------------------------------------------------------------ TCP

enum { Free = 0, Open = 1 };
/* tcpInfo()'s flags. */
enum { InfoOpen = 1, InfoEnded = 2, InfoDead = 4 };

typedef struct {
#if ESP32
	struct tcp_pcb *pcb;	// NULL once lwIP has freed it (error callback) or we closed it
#else
	int fd;
#endif
	uint8_t state;
	uint8_t ended;			// the peer sent FIN
	uint8_t dead;			// reset, or an error: the connection is gone
	uint32_t ip;
	uint16_t port;
	uint8_t *rx;
	uint32_t rxIn;			// written by lwIP's thread (ESP32)
	uint32_t rxOut;			// written by the XS task
#if ESP32
	struct pbuf *held;		// what did not fit the ring (ours; lwIP's thread only), from heldAt
	uint32_t heldAt;
#endif
} Connection;

static Connection gConnections[MAX_CONNECTIONS];
static int gConnectionCount = 0;
static uint32_t gRxBytes = 0;
static uint32_t gWindow = 0;
static uint32_t gEvents = 0;	// a bit per connection that changed since tcpEvents()

static void changed(Connection *c)
{
	__atomic_fetch_or(&gEvents, 1u << (c - gConnections), __ATOMIC_RELEASE);
}

static uint32_t rxFree(Connection *c)
{
	return gRxBytes - (c->rxIn - LOAD(&c->rxOut));
}

/* A free slot takes a new connection (its pcb or socket already set). */
static void opened(Connection *c, uint32_t ip, uint16_t port)
{
	c->ended = 0;
	c->dead = 0;
	c->rxIn = 0;
	c->rxOut = 0;
#if ESP32
	c->held = NULL;
	c->heldAt = 0;
#endif
	c->ip = ip;
	c->port = port;
	c->state = Open;
	gTcpCounters[TcpAccepted]++;
	changed(c);
}

static Connection *connection(xsMachine *the, int slot)
{
	if ((slot < 0) || (slot >= gConnectionCount))
		xsRangeError("connection %d", slot);
	return &gConnections[slot];
}

#if ESP32
static struct tcp_pcb *gListener = NULL;

/* Copy `length` bytes of `p` from `from` into the ring (which has room), and open the TCP window by as many. */
static void rxTake(Connection *c, struct pbuf *p, uint32_t from, uint32_t length)
{
	uint32_t at = c->rxIn & (gRxBytes - 1);
	uint32_t first = gRxBytes - at;
	if (first > length) first = length;
	pbuf_copy_partial(p, c->rx + at, first, from);
	pbuf_copy_partial(p, c->rx, length - first, from + first);
	STORE(&c->rxIn, c->rxIn + length);
	if (c->pcb) tcp_recved(c->pcb, length);
	changed(c);
}

/*
	Flow control is the ring's: what fits goes in, and the TCP window opens by that much; the
	rest (a segment of up to an MSS, or a reassembled run of them, can be more than a ring) is
	held here, and so is everything after it, in order, with the window still closed for it:
	the held bytes are at most one TCP window (CONFIG_LWIP_TCP_WND_DEFAULT) a connection, what
	lwIP itself would keep for a slow reader. The XS task's reads make room and move the held
	bytes in (refill), freeing each pbuf once it is all in the ring.
*/
static err_t onReceived(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	Connection *c = arg;
	if (!p) {
		c->ended = 1;
		changed(c);
		return ERR_OK;
	}
	if (c->held) {
		pbuf_cat(c->held, p);
		return ERR_OK;
	}
	uint32_t length = p->tot_len;
	uint32_t n = rxFree(c);
	if (n > length) n = length;
	if (n) rxTake(c, p, 0, n);
	if (n == length) {
		pbuf_free(p);
		return ERR_OK;
	}
	gTcpCounters[TcpHeld]++;
	c->heldAt = n;
	__atomic_store_n(&c->held, p, __ATOMIC_RELEASE);
	return ERR_OK;
}

static void dropHeld(Connection *c)
{
	struct pbuf *p = c->held;
	if (!p) return;
	__atomic_store_n(&c->held, NULL, __ATOMIC_RELEASE);
	pbuf_free(p);
}

/* In lwIP's thread, after a read made room: held bytes into the ring, and the pbufs that are all in it freed. */
static err_t doRefill(struct tcpip_api_call_data *call);

/* lwIP has freed the pcb (a reset, or an abort of its own): forget it. */
static void onError(void *arg, err_t err)
{
	Connection *c = arg;
	c->pcb = NULL;
	dropHeld(c);
	c->dead = 1;
	gTcpCounters[TcpResets]++;
	changed(c);
}

static err_t onAccepted(void *arg, struct tcp_pcb *pcb, err_t err)
{
	if ((ERR_OK != err) || !pcb)
		return ERR_VAL;
	Connection *c = NULL;
	for (int i = 0; (i < gConnectionCount) && !c; i++)
		if (Free == gConnections[i].state) c = &gConnections[i];
	if (!c) {
		gTcpCounters[TcpRefused]++;
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	c->pcb = pcb;
	tcp_arg(pcb, c);
	tcp_recv(pcb, onReceived);
	tcp_err(pcb, onError);
	tcp_nagle_disable(pcb);
	opened(c, ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)), pcb->remote_port);
	return ERR_OK;
}

typedef struct {
	struct tcpip_api_call_data call;
	Connection *c;
	const uint8_t *data;
	uint32_t length;
	const uint8_t *head;		// written before `data` (a WebSocket frame's header), or NULL
	uint32_t headLength;
	int more;
	int port;
	int backlog;
	int result;
} TcpOp;

static err_t doRefill(struct tcpip_api_call_data *call)
{
	TcpOp *op = (TcpOp *)call;
	Connection *c = op->c;
	struct pbuf *p = c->held;
	if (!p) return ERR_OK;
	uint32_t n = rxFree(c);
	uint32_t left = p->tot_len - c->heldAt;
	if (n > left) n = left;
	if (!n) return ERR_OK;
	rxTake(c, p, c->heldAt, n);
	c->heldAt += n;
	uint32_t skip = 0;
	while (p && (c->heldAt - skip >= p->len)) {
		skip += p->len;
		p = p->next;
	}
	if (skip) {
		struct pbuf *rest = pbuf_free_header(c->held, skip);
		c->heldAt -= skip;
		__atomic_store_n(&c->held, rest, __ATOMIC_RELEASE);
	}
	return ERR_OK;
}

static err_t doListen(struct tcpip_api_call_data *call)
{
	TcpOp *op = (TcpOp *)call;
	struct tcp_pcb *pcb = tcp_new();
	op->result = -1;
	if (!pcb) return ERR_OK;
	if (ERR_OK != tcp_bind(pcb, IP_ADDR_ANY, op->port)) {
		tcp_close(pcb);
		return ERR_OK;
	}
	gListener = tcp_listen_with_backlog(pcb, op->backlog);
	if (!gListener) {
		tcp_close(pcb);
		return ERR_OK;
	}
	tcp_accept(gListener, onAccepted);
	op->result = 0;
	return ERR_OK;
}

/* What may be written now: the send buffer's room, within the window of unacknowledged bytes. */
static int room(struct tcp_pcb *pcb)
{
	uint32_t space = tcp_sndbuf(pcb);
	uint32_t inFlight = TCP_SND_BUF - space;
	if (inFlight >= gWindow) return 0;
	if (space > gWindow - inFlight) space = gWindow - inFlight;
	if (tcp_sndqueuelen(pcb) + 4 > TCP_SND_QUEUELEN) return 0;
	return space;
}

static err_t doRoom(struct tcpip_api_call_data *call)
{
	TcpOp *op = (TcpOp *)call;
	op->result = op->c->pcb ? room(op->c->pcb) : -1;
	return ERR_OK;
}

static err_t doWrite(struct tcpip_api_call_data *call)
{
	TcpOp *op = (TcpOp *)call;
	struct tcp_pcb *pcb = op->c->pcb;
	if (!pcb) {
		op->result = -1;
		return ERR_OK;
	}
	if ((uint32_t)room(pcb) < op->headLength + op->length) {
		op->result = 0;
		return ERR_OK;
	}
	err_t err = ERR_OK;
	if (op->headLength)
		err = tcp_write(pcb, op->head, op->headLength, TCP_WRITE_FLAG_COPY | TCP_WRITE_FLAG_MORE);
	if ((ERR_OK == err) && op->length)
		err = tcp_write(pcb, op->data, op->length, TCP_WRITE_FLAG_COPY | (op->more ? TCP_WRITE_FLAG_MORE : 0));
	if (ERR_OK != err) {
		gTcpCounters[TcpWriteErrors]++;
		op->result = (ERR_MEM == err) ? 0 : -1;
		return ERR_OK;
	}
	if (!op->more)
		tcp_output(pcb);
	op->result = op->length;
	return ERR_OK;
}

static err_t doClose(struct tcpip_api_call_data *call)
{
	TcpOp *op = (TcpOp *)call;
	Connection *c = op->c;
	struct tcp_pcb *pcb = c->pcb;
	if (pcb) {
		// Nothing of ours is called for this pcb again: lwIP finishes the close alone.
		tcp_arg(pcb, NULL);
		tcp_recv(pcb, NULL);
		tcp_err(pcb, NULL);
		if (op->result || (ERR_OK != tcp_close(pcb))) {
			tcp_abort(pcb);
			gTcpCounters[TcpAborted]++;
		}
		else
			gTcpCounters[TcpClosed]++;
	}
	dropHeld(c);
	c->pcb = NULL;
	c->state = Free;
	c->ended = 0;
	c->dead = 0;
	__atomic_fetch_and(&gEvents, ~(1u << (c - gConnections)), __ATOMIC_RELEASE);
	return ERR_OK;
}
#else
static int gListenFd = -1;

static void rxPut(Connection *c, const uint8_t *bytes, uint32_t length)
{
	uint32_t at = c->rxIn & (gRxBytes - 1);
	uint32_t first = gRxBytes - at;
	if (first > length) first = length;
	memcpy(c->rx + at, bytes, first);
	memcpy(c->rx, bytes + first, length - first);
	STORE(&c->rxIn, c->rxIn + length);
}

/* Linux: read what the kernel has for each connection, take new ones, note endings. */
static void pump(void)
{
	for (;;) {
		struct sockaddr_in a;
		socklen_t alen = sizeof(a);
		int fd = (gListenFd < 0) ? -1 : accept(gListenFd, (struct sockaddr *)&a, &alen);
		if (fd < 0) break;
		Connection *c = NULL;
		for (int i = 0; (i < gConnectionCount) && !c; i++)
			if (Free == gConnections[i].state) c = &gConnections[i];
		if (!c) {
			struct linger l = { 1, 0 };
			setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			close(fd);
			gTcpCounters[TcpRefused]++;
			continue;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		c->fd = fd;
		opened(c, a.sin_addr.s_addr, ntohs(a.sin_port));
	}
	for (int i = 0; i < gConnectionCount; i++) {
		Connection *c = &gConnections[i];
		if ((Open != c->state) || c->dead || c->ended) continue;
		uint8_t buffer[512];
		for (;;) {
			uint32_t space = rxFree(c);
			if (space == 0) break;
			if (space > sizeof(buffer)) space = sizeof(buffer);
			ssize_t n = recv(c->fd, buffer, space, MSG_DONTWAIT);
			if (n > 0) {
				rxPut(c, buffer, n);
				changed(c);
				continue;
			}
			if (n == 0)
				c->ended = 1;
			else if ((errno != EAGAIN) && (errno != EWOULDBLOCK) && (errno != EINTR)) {
				c->dead = 1;
				gTcpCounters[TcpResets]++;
			}
			if (c->ended || c->dead) changed(c);
			break;
		}
	}
}

static int room(Connection *c)
{
	int queued = 0;
	if ((c->fd < 0) || c->dead) return -1;
	if (ioctl(c->fd, SIOCOUTQ, &queued) < 0) return -1;
	return ((uint32_t)queued >= gWindow) ? 0 : (int)(gWindow - queued);
}
#endif

/*
	tcpListen(port, connections, rxBytes, window): listen on `port`, with `connections` slots
	(at most 16), a receive ring of `rxBytes` (a power of 2) each, and at most `window` bytes
	unacknowledged per connection. Throws if it cannot.
*/
void xs_lwar_tcp_listen(xsMachine *the)
{
	int port = xsmcToInteger(xsArg(0));
	int count = xsmcToInteger(xsArg(1));
	int rxBytes = xsmcToInteger(xsArg(2));
	int window = xsmcToInteger(xsArg(3));
	if ((count < 1) || (count > MAX_CONNECTIONS))
		xsRangeError("tcpListen: connections %d (1 to %d)", count, MAX_CONNECTIONS);
	if ((rxBytes < 256) || (rxBytes > 16384) || (rxBytes & (rxBytes - 1)))
		xsRangeError("tcpListen: rxBytes %d (a power of 2, 256 to 16384)", rxBytes);
	if ((window < 536) || (window > 16384))
		xsRangeError("tcpListen: window %d (536 to 16384)", window);
	if (gConnectionCount)
		xsUnknownError("tcpListen: listening already");
	uint8_t *rings = c_calloc(count, rxBytes);
	if (!rings)
		xsUnknownError("tcpListen: no memory for %d connections", count);
	for (int i = 0; i < count; i++) {
		memset(&gConnections[i], 0, sizeof(Connection));
		gConnections[i].rx = rings + i * rxBytes;
#if !ESP32
		gConnections[i].fd = -1;
#endif
	}
	gRxBytes = rxBytes;
	gWindow = window;
	gConnectionCount = count;
#if ESP32
	TcpOp op;
	op.port = port;
	op.backlog = 2;
	tcpip_api_call(doListen, &op.call);
	if (op.result < 0) {
		gConnectionCount = 0;
		c_free(rings);
		xsUnknownError("tcpListen: cannot listen on port %d", port);
	}
#else
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	struct sockaddr_in a;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_ANY);
	if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((fd < 0) || (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0) || (listen(fd, 4) < 0)) {
		if (fd >= 0) close(fd);
		gConnectionCount = 0;
		c_free(rings);
		xsUnknownError("tcpListen: cannot listen on port %d", port);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	gListenFd = fd;
#endif
}

/* tcpEvents(): a bit per connection that was opened, received, ended or died since the last call. */
void xs_lwar_tcp_events(xsMachine *the)
{
#if !ESP32
	pump();
#endif
	xsmcSetInteger(xsResult, (int32_t)__atomic_exchange_n(&gEvents, 0, __ATOMIC_ACQ_REL));
}

/* tcpInfo(slot): flags (1 open, 2 the peer ended its side, 4 gone) | bytes waiting << 8. */
void xs_lwar_tcp_info(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	int flags = 0;
	if (Open == LOAD(&c->state)) {
		flags = InfoOpen;
		if (LOAD(&c->ended)) flags |= InfoEnded;
		if (LOAD(&c->dead)) flags |= InfoDead;
		flags |= (int)(LOAD(&c->rxIn) - c->rxOut) << 8;
	}
	xsmcSetInteger(xsResult, flags);
}

/* tcpAddress(slot): the remote IPv4 address, network byte order (as a Number). */
void xs_lwar_tcp_address(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	xsmcSetNumber(xsResult, c->ip);
}

/* After the XS task took bytes from a ring: move what lwIP's thread held for it in (ESP32; the simulator reads only what fits). */
static void refill(Connection *c)
{
#if ESP32
	if (__atomic_load_n(&c->held, __ATOMIC_ACQUIRE)) {
		TcpOp op;
		op.c = c;
		tcpip_api_call(doRefill, &op.call);
	}
#else
	(void)c;
#endif
}

/* tcpRead(slot, buffer, offset, max): copy up to `max` waiting bytes into buffer at `offset`; how many. */
void xs_lwar_tcp_read(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	void *data;
	xsUnsignedValue size;
	xsmcGetBufferWritable(xsArg(1), &data, &size);
	int offset = xsmcToInteger(xsArg(2));
	int max = xsmcToInteger(xsArg(3));
	if ((offset < 0) || (max < 0) || ((xsUnsignedValue)(offset + max) > size))
		xsRangeError("tcpRead: %d bytes at %d of %d", max, offset, (int)size);
	uint32_t out = c->rxOut;
	uint32_t waiting = LOAD(&c->rxIn) - out;
	uint32_t n = ((uint32_t)max < waiting) ? (uint32_t)max : waiting;
	uint32_t at = out & (gRxBytes - 1);
	uint32_t first = gRxBytes - at;
	if (first > n) first = n;
	memcpy((uint8_t *)data + offset, c->rx + at, first);
	memcpy((uint8_t *)data + offset + first, c->rx, n - first);
	STORE(&c->rxOut, out + n);
	if (n) refill(c);
	xsmcSetInteger(xsResult, n);
}

/* tcpRoom(slot): bytes tcpWrite() takes now; -1 when the connection is gone. */
void xs_lwar_tcp_room(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
#if ESP32
	TcpOp op;
	op.c = c;
	tcpip_api_call(doRoom, &op.call);
	xsmcSetInteger(xsResult, op.result);
#else
	xsmcSetInteger(xsResult, room(c));
#endif
}

/* Write head (may be NULL) and data, all or none: `length`, 0 when there is no room now, -1 when gone. */
static int writeAll(Connection *c, const uint8_t *head, uint32_t headLength, const uint8_t *data, uint32_t length, int more)
{
#if ESP32
	TcpOp op;
	op.c = c;
	op.head = head;
	op.headLength = headLength;
	op.data = data;
	op.length = length;
	op.more = more;
	tcpip_api_call(doWrite, &op.call);
	return op.result;
#else
	int space = room(c);
	if (space < 0) return -1;
	if ((uint32_t)space < headLength + length) return 0;
	struct iovec parts[2] = { { (void *)head, headLength }, { (void *)data, length } };
	struct msghdr m;
	memset(&m, 0, sizeof(m));
	m.msg_iov = head ? parts : parts + 1;
	m.msg_iovlen = head ? 2 : 1;
	ssize_t n = sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL | (more ? MSG_MORE : 0));
	if (n == (ssize_t)(headLength + length)) return length;
	if ((n < 0) && ((errno == EAGAIN) || (errno == EWOULDBLOCK))) return 0;
	// A partial write cannot be taken back: the stream is broken.
	gTcpCounters[TcpWriteErrors]++;
	c->dead = 1;
	return -1;
#endif
}

static const uint8_t *bytesOf(xsMachine *the, xsSlot *slot, xsUnsignedValue *size)
{
	if (xsStringType == xsmcTypeOf(*slot)) {
		const char *text = xsmcToString(*slot);
		*size = c_strlen(text);
		return (const uint8_t *)text;
	}
	void *data;
	xsmcGetBufferReadable(*slot, &data, size);
	return data;
}

/*
	tcpWrite(slot, data, offset, length, more): send `length` bytes of `data` (a buffer, or
	a string and then its UTF-8 bytes) from `offset`, all or none: `length`, 0 when there is
	no room now, -1 when the connection is gone. `more`: more follows at once (no push yet).
*/
void xs_lwar_tcp_write(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	xsUnsignedValue size;
	const uint8_t *data = bytesOf(the, &xsArg(1), &size);
	int offset = xsmcToInteger(xsArg(2));
	int length = xsmcToInteger(xsArg(3));
	int more = (xsmcArgc > 4) && xsmcToBoolean(xsArg(4));
	if ((offset < 0) || (length < 0) || ((xsUnsignedValue)(offset + length) > size))
		xsRangeError("tcpWrite: %d bytes at %d of %d", length, offset, (int)size);
	xsmcSetInteger(xsResult, (length == 0) ? 0 : writeAll(c, NULL, 0, data + offset, length, more));
}

/*
	tcpFrame(slot, opcode, data, length): one unfragmented, unmasked WebSocket frame (RFC 6455
	section 5.2) of `length` bytes of `data` (at most 65535), all or none, as tcpWrite.
		byte 0     FIN (0x80) | opcode
		byte 1     length, or 126 then the length in bytes 2..3, big-endian
*/
void xs_lwar_tcp_frame(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	int opcode = xsmcToInteger(xsArg(1));
	xsUnsignedValue size;
	const uint8_t *data = bytesOf(the, &xsArg(2), &size);
	int length = xsmcToInteger(xsArg(3));
	uint8_t head[4];
	uint32_t headLength = 2;
	if ((length < 0) || ((xsUnsignedValue)length > size) || (length > 0xffff) || (opcode & ~0x0f))
		xsRangeError("tcpFrame: opcode %d, %d bytes of %d", opcode, length, (int)size);
	head[0] = 0x80 | opcode;
	if (length < 126)
		head[1] = length;
	else {
		head[1] = 126;
		head[2] = length >> 8;
		head[3] = length & 0xff;
		headLength = 4;
	}
	xsmcSetInteger(xsResult, writeAll(c, head, headLength, data, length, 0));
}

/*
	tcpHead(slot): an HTTP request's head, when it has all come: the bytes up to the empty line
	are taken from the ring and returned as a string (without the final CR LF CR LF).
	undefined while it has not all come; null when it fills the whole ring (too large).
*/
void xs_lwar_tcp_head(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	uint32_t out = c->rxOut;
	uint32_t waiting = LOAD(&c->rxIn) - out;
	uint32_t mask = gRxBytes - 1;
	uint32_t match = 0;
	static const char end[4] = { '\r', '\n', '\r', '\n' };
	for (uint32_t i = 0; i < waiting; i++) {
		char b = c->rx[(out + i) & mask];
		match = (b == end[match]) ? match + 1 : ((b == '\r') ? 1 : 0);
		if (match == 4) {
			uint32_t length = i - 3;
			xsmcSetStringBuffer(xsResult, NULL, length);
			char *text = xsmcToString(xsResult);
			for (uint32_t k = 0; k < length; k++) {
				char ch = c->rx[(out + k) & mask];
				text[k] = ((ch & 0x80) || !ch) ? '?' : ch;	// the head stays ASCII: a valid string
			}
			STORE(&c->rxOut, out + i + 1);
			refill(c);
			return;
		}
	}
	if (waiting >= gRxBytes)
		xsmcSetNull(xsResult);
}

/* tcpClose(slot, abort): close (a FIN; a reset where `abort` or where a close fails) and free the slot. */
void xs_lwar_tcp_close(xsMachine *the)
{
	Connection *c = connection(the, xsmcToInteger(xsArg(0)));
	int abort = xsmcToBoolean(xsArg(1));
	if (Free == c->state) return;
#if ESP32
	TcpOp op;
	op.c = c;
	op.result = abort;
	tcpip_api_call(doClose, &op.call);
#else
	if (c->fd >= 0) {
		if (abort || c->dead) {
			struct linger l = { 1, 0 };
			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
			gTcpCounters[TcpAborted]++;
		}
		else
			gTcpCounters[TcpClosed]++;
		close(c->fd);
	}
	c->fd = -1;
	c->state = Free;
	c->ended = 0;
	c->dead = 0;
	gEvents &= ~(1u << (c - gConnections));
#endif
}
