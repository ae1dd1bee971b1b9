/*
 * Platform header for lwxs, included by the XS sources through
 * -DINCLUDE_XSPLATFORM -DXSPLATFORM="lwxsPlatform.h".
 * Linux and macOS on x86_64 or arm64 only.
 */

#ifndef __LWXS_PLATFORM__
#define __LWXS_PLATFORM__

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__))
	#undef mxLittleEndian
	#define mxLittleEndian 1
	#if defined(__linux__)
		#undef mxLinux
		#define mxLinux 1
	#else
		#undef mxMacOSX
		#define mxMacOSX 1
	#endif
	#define XS_FUNCTION_NORETURN __attribute__((noreturn))
#else
	#error lwxs builds with gcc or clang on a little-endian Linux or macOS host
#endif

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <unistd.h>

#define mxUseGCCAtomics 1
#define mxUsePOSIXThreads 1

/* As on the device: the engine prints nothing by itself (with mxDebug it
   would report every exception thrown, caught or not). lwxs reports what
   matters on stderr; stdout carries only what scripts print. */
#define mxNoConsole 1
#define c_printf(...) fprintf(stderr, __VA_ARGS__)
#define c_vprintf(FORMAT, ARGUMENTS) vfprintf(stderr, FORMAT, ARGUMENTS)

#define mxMachinePlatform \
	void* waiterCondition; \
	void* waiterData; \
	txMachine* waiterLink; \
	int promiseJobs;

#define mxUseDefaultBuildKeys 1
#define mxUseDefaultDebug 1
#define mxUseDefaultChunkAllocation 1
#define mxUseDefaultSlotAllocation 1
#define mxUseDefaultFindModule 1
#define mxUseDefaultLoadModule 1
#define mxUseDefaultParseScript 1
#define mxUseDefaultSharedChunks 1

#endif /* __LWXS_PLATFORM__ */
