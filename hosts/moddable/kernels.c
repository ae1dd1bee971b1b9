/*
 * Native inner loops of the server: the priority planner's plan and commit, and the
 * Update entry loop. The JavaScript they mirror is the reference (modules/server/updates.ts
 * PriorityPlanner.plan and .commit, modules/server/server.ts #sendUpdates); the interface
 * and the calling convention are in modules/native.ts. The array and word numbers below
 * are PlanMem/PlanWord and PackMem/PackWord there.
 *
 * Built into the Moddable app (hosts/moddable/kernels.js declares the functions) and into
 * tools/xs/build/lwxs, which exposes them as xs.kernels. Only xs.h and xsmc.h
 * access are used, so the same file compiles against both XS trees.
 *
 * Integer semantics: JavaScript's int32 operators wrap, C's signed overflow is undefined;
 * where a sum could leave the int32 range it is computed in 64 bits and wrapped the way
 * ToInt32 does (wrap32).
 */
#ifdef LWXS_KERNELS
/* lwxs's platform header names the engine's own types: they come first there */
#include "xsAll.h"
#endif
#include "xs.h"
#include "xsmc.h"
#include <stdint.h>
#include <string.h>

#define VIEWS 4

typedef struct {
	uint8_t *view[VIEWS];
	int32_t *words;
} lw_mem;

/* Arguments 0..4: layout, then the four views. Pointers are good until the call returns. */
static void lw_bind(xsMachine *the, lw_mem *m)
{
	void *data;
	xsUnsignedValue count;
	int i;
	xsmcGetBufferWritable(xsArg(0), &data, &count);
	m->words = (int32_t *)data;
	for (i = 0; i < VIEWS; i++) {
		xsmcGetBufferWritable(xsArg(1 + i), &data, &count);
		m->view[i] = (uint8_t *)data;
	}
}

#define AT(m, n) ((m)->view[(m)->words[2 * (n)]] + (m)->words[2 * (n) + 1])
#define I32(m, n) ((int32_t *)AT(m, n))
#define U32(m, n) ((uint32_t *)AT(m, n))
#define U16(m, n) ((uint16_t *)AT(m, n))
#define U8(m, n) ((uint8_t *)AT(m, n))

static inline int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

static inline int clz32(uint32_t v)
{
	return v == 0 ? 32 : __builtin_clz(v);
}

/* ------------------------------------------------------------------ planner */

enum { P_X, P_Y, P_VX, P_VY, P_OWNER, P_STEADY, P_FX, P_FY, P_FI, P_SETS, P_TICK, P_CURSOR, P_KNOWN, P_LIST, P_COUNT };
enum { W_CAP, W_WORDS, W_LIMIT, W_NEAR, W_MID, W_FAR, W_HASFOCUS, W_HASSTEADY, W_POSSHIFT, W_OWNEND, W_FRESHEND, W_CARRIEDEND, W_PLANNED };

#define WHEEL 8
#define SETS (2 + 2 * WHEEL)
#define FRESH 0
#define CARRIED 1
#define MAX_UPDATE_GAP 4
#define NO_PLAYER 0xffffffffu

/* plan(layout, m0, m1, m2, m3, slot) -> count */
void xs_lwar_plan(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * P_COUNT;
	int32_t words = w[W_WORDS];
	int32_t *sets = I32(&m, P_SETS);
	int32_t *ticks = I32(&m, P_TICK);
	uint16_t *list = U16(&m, P_LIST);
	int32_t tick = ticks[slot] + 1;
	int32_t base = slot * SETS * words;
	int32_t own = w[W_HASFOCUS] ? I32(&m, P_FI)[slot] : -1;
	int32_t limit = w[W_LIMIT];
	int32_t n = 0;
	int32_t wheel, set;
	ticks[slot] = tick;
	if (own >= 0 && U8(&m, P_KNOWN)[slot * w[W_CAP] + own] != 0)
		list[n++] = (uint16_t)own;
	w[W_OWNEND] = n;
	wheel = 2 + 2 * (tick & (WHEEL - 1));
	for (set = 0; set < 4; set++) {
		int32_t from = base + (set < 2 ? set : wheel + set - 2) * words;
		int32_t start = set == CARRIED ? I32(&m, P_CURSOR)[slot] : 0;
		int32_t j0 = start >> 5;
		uint32_t cut = 0xffffffffu << (start & 31);
		int32_t c;
		for (c = 0; c <= words && n < limit; c++) {
			int32_t j = j0 + c;
			uint32_t part, all, bits;
			if (j >= words)
				j -= words;
			part = c == 0 ? cut : c == words ? ~cut : 0xffffffffu;
			if (part == 0)
				continue;
			all = (uint32_t)sets[from + j];
			bits = all & part;
			if (bits == 0)
				continue;
			while (bits != 0 && n < limit) {
				uint32_t low = bits & (0u - bits);
				int32_t i;
				bits ^= low;
				i = (j << 5) + 31 - clz32(low);
				if (i != own)
					list[n++] = (uint16_t)i;
			}
			sets[from + j] = (int32_t)((all & ~part) | bits);
		}
		if (set == FRESH)
			w[W_FRESHEND] = n;
		else if (set == CARRIED)
			w[W_CARRIEDEND] = n;
	}
	w[W_PLANNED] = n;
	xsmcSetInteger(xsResult, n);
}

/* commit(layout, m0, m1, m2, m3, slot, sent) */
void xs_lwar_commit(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t sent = xsmcToInteger(xsArg(6));
	int32_t *w = m.words + 2 * P_COUNT;
	const int32_t *ex = I32(&m, P_X), *ey = I32(&m, P_Y), *evx = I32(&m, P_VX), *evy = I32(&m, P_VY);
	const uint32_t *owner = U32(&m, P_OWNER);
	const uint8_t *steady = w[W_HASSTEADY] ? U8(&m, P_STEADY) : NULL;
	const uint16_t *list = U16(&m, P_LIST);
	int32_t *sets = I32(&m, P_SETS);
	int32_t words = w[W_WORDS];
	int32_t cap = w[W_CAP];
	int32_t tick = I32(&m, P_TICK)[slot];
	int32_t base = slot * SETS * words;
	int32_t fx = w[W_HASFOCUS] ? I32(&m, P_FX)[slot] : 0;
	int32_t fy = w[W_HASFOCUS] ? I32(&m, P_FY)[slot] : 0;
	int32_t shift = w[W_POSSHIFT];
	int32_t near = w[W_NEAR], mid = w[W_MID], far = w[W_FAR];
	int32_t n = w[W_PLANNED], ownEnd = w[W_OWNEND], freshEnd = w[W_FRESHEND], carriedEnd = w[W_CARRIEDEND];
	int32_t cursor = -1;
	int32_t k, j, due, carried;
	for (k = 0; k < n; k++) {
		int32_t i = list[k];
		int32_t set;
		if (k >= sent)
			set = k >= ownEnd && k < freshEnd ? FRESH : CARRIED;
		else {
			int32_t by;
			if (owner[i] == NO_PLAYER || (evx[i] == 0 && evy[i] == 0))
				by = MAX_UPDATE_GAP;
			else {
				int32_t dx = wrap32((int64_t)ex[i] - fx) >> shift;
				int32_t dy = wrap32((int64_t)ey[i] - fy) >> shift;
				int32_t d;
				if (dx < 0)
					dx = -dx;
				if (dy < 0)
					dy = -dy;
				d = dx > dy ? dx + ((dy * 13) >> 5) : dy + ((dx * 13) >> 5);
				by = d < near ? 1 : d < mid ? 2 : d < far ? 3 : MAX_UPDATE_GAP;
				if (by < 2 && steady != NULL && steady[i] != 0)
					by = 2;
			}
			set = 2 + 2 * ((tick + by) & (WHEEL - 1)) + (by == MAX_UPDATE_GAP ? 0 : 1);
			if (k >= freshEnd && k < carriedEnd)
				cursor = i + 1;
		}
		sets[base + set * words + (i >> 5)] |= (int32_t)(1u << (i & 31));
	}
	if (cursor >= 0)
		I32(&m, P_CURSOR)[slot] = cursor < cap ? cursor : 0;
	due = base + (2 + 2 * (tick & (WHEEL - 1))) * words;
	carried = base + CARRIED * words;
	for (j = 0; j < 2 * words; j++) {
		int32_t bits = sets[due + j];
		if (bits == 0)
			continue;
		sets[carried + (j < words ? j : j - words)] |= bits;
		sets[due + j] = 0;
	}
}

/* ------------------------------------------------------------------ Update entries */

enum { K_ENTRIES, K_ENCODED, K_X, K_Y, K_VX, K_VY, K_ROT, K_HEALTH, K_LIST, K_COUNT };
enum { KW_MAXPACKET, KW_ENTRY, KW_STEPHZ, KW_POSSHIFT, KW_ANGLEBITS, KW_CENTI, KW_O, KW_K };

static inline int32_t clamp16(int32_t v)
{
	return v < -32768 ? -32768 : v > 32767 ? 32767 : v;
}

static inline void put16(uint8_t *p, int32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* pack(layout, m0, m1, m2, m3, pos, n, o) -> pos; the packet offset and entry count in words */
void xs_lwar_pack(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t pos = xsmcToInteger(xsArg(5));
	int32_t n = xsmcToInteger(xsArg(6));
	int32_t o = xsmcToInteger(xsArg(7));
	int32_t *w = m.words + 2 * K_COUNT;
	uint8_t *all = U8(&m, K_ENTRIES);
	uint8_t *encoded = U8(&m, K_ENCODED);
	const int32_t *ex = I32(&m, K_X), *ey = I32(&m, K_Y), *evx = I32(&m, K_VX), *evy = I32(&m, K_VY), *erot = I32(&m, K_ROT);
	const uint8_t *health = U8(&m, K_HEALTH);
	const uint16_t *list = U16(&m, K_LIST);
	int32_t maxPacket = w[KW_MAXPACKET], entry = w[KW_ENTRY], hz = w[KW_STEPHZ];
	int32_t shift = w[KW_POSSHIFT], angleBits = w[KW_ANGLEBITS], centi = w[KW_CENTI];
	int32_t half = 1 << (shift - 1), angleHalf = 1 << (angleBits - 1), angleMask = (1 << angleBits) - 1;
	int32_t room = maxPacket - entry;
	int32_t k = 0;
	while (pos < n && o <= room && k < 255) {
		int32_t i = list[pos];
		uint8_t *at = all + maxPacket + i * entry;
		if (encoded[i] == 0) {
			int32_t v;
			put16(at + 4, clamp16(wrap32((int64_t)ex[i] + half) >> shift));
			put16(at + 6, clamp16(wrap32((int64_t)ey[i] + half) >> shift));
			put16(at + 8, clamp16(wrap32((int64_t)evx[i] * hz + half) >> shift));
			put16(at + 10, clamp16(wrap32((int64_t)evy[i] * hz + half) >> shift));
			put16(at + 12, wrap32((int64_t)(erot[i] & angleMask) * centi + angleHalf) >> angleBits);
			v = health[i];
			at[14] = (uint8_t)(v > 100 ? 100 : v);
			encoded[i] = 1;
		}
		memcpy(all + o, at, entry);
		pos++;
		o += entry;
		k++;
	}
	w[KW_O] = o;
	w[KW_K] = k;
	xsmcSetInteger(xsResult, pos);
}
