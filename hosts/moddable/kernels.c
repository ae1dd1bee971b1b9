/*
 * Native inner loops of the server and the game: the priority planner's plan, commit and
 * bookkeeping of Adds and Removes, the Update entry loop, the entity sync, the receive fast
 * path, the projectiles' flight and a spawn point's clearance. The JavaScript they mirror
 * is the reference (modules/server/updates.ts PriorityPlanner.plan, .commit and
 * .applyActions, modules/server/server.ts #sendUpdates, #sync and #validate with #handle,
 * modules/game/game.ts #moveShots and #clearance); the interface and the calling convention
 * are in modules/native.ts. The array and word numbers below are PlanMem/PlanWord,
 * PackMem/PackWord, SyncMem/SyncWord, PeekMem/PeekWord, ShotMem/ShotWord and
 * ClearMem/ClearWord there.
 *
 * Built into the Moddable app (hosts/moddable/kernels.js declares the functions) and into
 * tools/xs/build/lwxs, which exposes them as xs.kernels. Only xs.h and xsmc.h's buffer
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

/* JavaScript's `a >> n` for an int32 a: the count taken modulo 32 */
static inline int32_t sar(int32_t a, int32_t n)
{
	return a >> (n & 31);
}

/*
 * The game's gravity table read as Game reads it (see OCT_MIN in modules/game/game.ts): for
 * u, r² at 1/8 wu (as JavaScript's int32 of it), the pull's value, and the table word, whose
 * top bits are the shift, in *word.
 */
static inline int32_t lw_gravity(const int32_t *table, int32_t u, int32_t floor, int32_t tmask, int32_t dshift, int32_t *word)
{
	int32_t oct = 31 - clz32((uint32_t)(u | floor));
	int32_t g = table[(oct << 5) + sar(u, oct - 5) - 512];
	*word = g;
	return (g & tmask) - ((((g >> dshift) & 1023) * (sar(u, oct - 13) & 255)) >> 8);
}

/* ------------------------------------------------------------------ planner */

enum { P_X, P_Y, P_VX, P_VY, P_OWNER, P_STEADY, P_FX, P_FY, P_FI, P_SETS, P_TICK, P_CURSOR, P_KNOWN, P_LIST, P_ACTIONS, P_COUNT };
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

/*
 * notify(layout, m0, m1, m2, m3, slot, n): PriorityPlanner.applyActions. For each of the
 * first n actions: an index the player was sent an Add for (added: it is new, and leaves
 * every set it was in), or ~index for a Remove (removed: it leaves every set, unknown).
 */
void xs_lwar_notify(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t n = xsmcToInteger(xsArg(6));
	int32_t *w = m.words + 2 * P_COUNT;
	int32_t *sets = I32(&m, P_SETS);
	uint8_t *known = U8(&m, P_KNOWN);
	const int32_t *actions = I32(&m, P_ACTIONS);
	int32_t words = w[W_WORDS], cap = w[W_CAP];
	int32_t base = slot * SETS * words;
	int32_t j;
	for (j = 0; j < n; j++) {
		int32_t a = actions[j];
		int32_t i = a < 0 ? ~a : a;
		int32_t k = slot * cap + i;
		int32_t first = base + (i >> 5), end = first + SETS * words, at;
		uint32_t mask = ~(1u << (i & 31));
		if (a < 0 && known[k] == 0)
			continue;
		if (known[k] != 0)
			for (at = first; at < end; at += words)
				sets[at] &= (int32_t)mask;
		if (a < 0)
			known[k] = 0;
		else {
			known[k] = 1;
			sets[first] |= (int32_t)~mask;
		}
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

/* ------------------------------------------------------------------ projectiles */

enum {
	S_X, S_Y, S_VX, S_VY, S_OWNER, S_TYPE, S_LIST, S_DOOMED, S_EXPIRES, S_GRAVITY, S_RADIUS, S_BODYINDEX,
	S_FOCUSINDEX, S_HP, S_PLAYERID, S_PREVX, S_PREVY, S_BODYPREVX, S_BODYPREVY, S_MASK, S_COUNT
};
enum {
	SW_GRIDHALF, SW_GRIDSHIFT, SW_GRIDSIDE, SW_OCTMIN, SW_OCTMAX, SW_TMASK, SW_DSHIFT, SW_SSHIFT, SW_ZONES,
	SW_PLANETBIT, SW_SHIPBIT, SW_PLANETBITS, SW_SUNRADIUS, SW_ARENAR2, SW_PLANETNEAR, SW_REACH, SW_ARMSTEPS,
	SW_SHOTBASE, SW_LIFE0, SW_LIFE1, SW_LIFE2, SW_LIFE3, SW_STEPS, SW_DITHER, SW_COUNT, SW_DOOMED, SW_WHY, SW_SLOT
};
enum { STOP_DONE, STOP_HIT, STOP_PULL };

/* game.ts sweep(): whether a point moving from d0 to d1 (relative) passes within r of 0 */
static int lw_sweep(int32_t d0x, int32_t d0y, int32_t d1x, int32_t d1y, int32_t r)
{
	int64_t fx, fy, a, l, c, rr = (int64_t)r * r;
	if ((d0x > r && d1x > r) || (d0x < -r && d1x < -r) || (d0y > r && d1y > r) || (d0y < -r && d1y < -r))
		return 0;
	fx = (int64_t)d1x - d0x;
	fy = (int64_t)d1y - d0y;
	a = d0x * fx + d0y * fy;
	if (a >= 0)
		return (int64_t)d0x * d0x + (int64_t)d0y * d0y < rr;
	l = fx * fx + fy * fy;
	if (a <= -l)
		return (int64_t)d1x * d1x + (int64_t)d1y * d1y < rr;
	c = d0x * fy - d0y * fx;
	/* c² and r²·l stay below 2^63 for the game's sizes; JavaScript's doubles are exact there too */
	return c * c < rr * l;
}

/*
 * shots(layout, m0, m1, m2, m3, k, n, dc) -> k
 *
 * Game#moveShots from list[k] on, with Game#collide's tests: a projectile whose time is
 * up is doomed; the others move; one whose grid cell holds something is tested against the
 * sun and the arena's edge, the planets and the ships, in that order, and doomed by the
 * first it meets; the rest get twice the sun's pull every other step (by index parity).
 * It stops and hands list[k] back to the JavaScript when it hits a ship (STOP_HIT, with the
 * slot: the damage is the game's business, Game#shotHit), or when its pull leaves the plain
 * integer range (STOP_PULL: u at or over 2^31, or a speed that may need the cap; Game#pull
 * does the exact test). A cell outside the grid holds nothing, as in the JavaScript (an
 * array read out of range is undefined there, and tests as nothing).
 */
void xs_lwar_shots(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t k = xsmcToInteger(xsArg(5));
	int32_t n = xsmcToInteger(xsArg(6));
	int32_t dc = xsmcToInteger(xsArg(7));
	int32_t *w = m.words + 2 * S_COUNT;
	int32_t *ex = I32(&m, S_X), *ey = I32(&m, S_Y), *evx = I32(&m, S_VX), *evy = I32(&m, S_VY);
	const uint32_t *owner = U32(&m, S_OWNER);
	const uint8_t *type = U8(&m, S_TYPE);
	uint16_t *list = U16(&m, S_LIST);
	uint16_t *doomed = U16(&m, S_DOOMED);
	const int32_t *expires = I32(&m, S_EXPIRES);
	const int32_t *gravity = I32(&m, S_GRAVITY);
	const uint8_t *radius = U8(&m, S_RADIUS);
	const int32_t *bodyIndex = I32(&m, S_BODYINDEX), *focusIndex = I32(&m, S_FOCUSINDEX);
	const int16_t *hp = (const int16_t *)AT(&m, S_HP);
	const uint32_t *playerId = U32(&m, S_PLAYERID);
	const int32_t *prevX = I32(&m, S_PREVX), *prevY = I32(&m, S_PREVY);
	const int32_t *bodyPrevX = I32(&m, S_BODYPREVX), *bodyPrevY = I32(&m, S_BODYPREVY);
	const int32_t *mask = I32(&m, S_MASK);
	int32_t gridHalf = w[SW_GRIDHALF], gridShift = w[SW_GRIDSHIFT], side = w[SW_GRIDSIDE];
	int64_t cells = (int64_t)side * side;
	int32_t floor = 1 << w[SW_OCTMIN];
	int32_t tmask = w[SW_TMASK], dshift = w[SW_DSHIFT], sshift = w[SW_SSHIFT];
	int32_t zones = w[SW_ZONES], planetBit = w[SW_PLANETBIT], shipBit = w[SW_SHIPBIT], planetBits = w[SW_PLANETBITS];
	int32_t sunRadius = w[SW_SUNRADIUS], arenaR2 = w[SW_ARENAR2], planetNear = w[SW_PLANETNEAR], reach = w[SW_REACH];
	int32_t armSteps = w[SW_ARMSTEPS], shotBase = w[SW_SHOTBASE];
	int32_t steps = w[SW_STEPS], parity = steps & 1, dither = w[SW_DITHER];
	int32_t why = STOP_DONE;
	for (; k < n; k++) {
		int32_t i = list[k];
		int32_t vx0, vy0, cx, cy, near = 0, gone = 0;
		int64_t x, y, cell;
		if (expires[i] <= steps) {
			doomed[dc++] = (uint16_t)i;
			list[k--] = list[--n];
			continue;
		}
		vx0 = evx[i];
		vy0 = evy[i];
		x = (int64_t)ex[i] + vx0;
		y = (int64_t)ey[i] + vy0;
		ex[i] = wrap32(x);
		ey[i] = wrap32(y);
		cy = wrap32(y + gridHalf) >> gridShift;
		cx = wrap32(x + gridHalf) >> gridShift;
		cell = (int64_t)cy * side + cx;
		if (cell >= 0 && cell < cells)
			near = mask[cell];
		if (near != 0) {
			/* Game#collide, with x and y as the table holds them */
			int32_t px = ex[i], py = ey[i];
			uint32_t bits;
			if ((near & zones) != 0) {
				int32_t xs = px >> 7, ys = py >> 7;
				int64_t u = (int64_t)xs * xs + (int64_t)ys * ys;
				int64_t t = (int64_t)(sunRadius + radius[i]) << 3;
				if (u > arenaR2 || u < t * t)
					gone = 1;
			}
			for (bits = (uint32_t)((near >> planetBit) & planetBits); bits != 0 && !gone; bits &= bits - 1) {
				int32_t b = 32 - clz32(bits & (0u - bits));
				int32_t o = bodyIndex[b];
				int64_t dx = (int64_t)px - ex[o], dy = (int64_t)py - ey[o];
				int32_t r;
				if (dx >= planetNear || dx <= -planetNear || dy >= planetNear || dy <= -planetNear)
					continue;
				r = (radius[o] + radius[i]) << 1;
				if (lw_sweep(wrap32((int64_t)px - vx0 - bodyPrevX[b]) >> 9, wrap32((int64_t)py - vy0 - bodyPrevY[b]) >> 9,
						(int32_t)dx >> 9, (int32_t)dy >> 9, r))
					gone = 1;
			}
			for (bits = (uint32_t)((near >> shipBit) & 0xff); bits != 0 && !gone; bits &= bits - 1) {
				int32_t b = 31 - clz32(bits & (0u - bits));
				int32_t o = focusIndex[b];
				int64_t dx, dy;
				int32_t r;
				if (o < 0 || hp[b] <= 0)
					continue;
				dx = (int64_t)px - ex[o];
				dy = (int64_t)py - ey[o];
				if (dx > reach || dx < -reach || dy > reach || dy < -reach)
					continue;
				/* A fresh projectile cannot hit the ship that fired it. */
				if (owner[i] == playerId[b] && steps - expires[i] + w[SW_LIFE0 + type[i] - shotBase] < armSteps)
					continue;
				r = (radius[o] + radius[i]) << 1;
				if (lw_sweep(wrap32((int64_t)px - vx0 - prevX[b]) >> 9, wrap32((int64_t)py - vy0 - prevY[b]) >> 9,
						(int32_t)dx >> 9, (int32_t)dy >> 9, r)) {
					w[SW_SLOT] = b;
					why = STOP_HIT;
					break;
				}
			}
			if (why != STOP_DONE)
				break;
			if (gone) {
				doomed[dc++] = (uint16_t)i;
				list[k--] = list[--n];
				continue;
			}
		}
		if ((i & 1) != parity)
			continue;
		{
			int32_t xs = ex[i] >> 7, ys = ey[i] >> 7;
			int64_t u64 = (int64_t)xs * xs + (int64_t)ys * ys;
			int32_t g, t, sh, d;
			int64_t vx, vy;
			if (u64 > 0x7fffffff) {
				why = STOP_PULL;
				break;
			}
			t = lw_gravity(gravity, (int32_t)u64, floor, tmask, dshift, &g);
			sh = (g >> sshift) - 1;
			d = dither >> (31 - sh);
			vx = (int64_t)vx0 + (wrap32((int64_t)d - (int64_t)xs * t) >> sh);
			vy = (int64_t)vy0 + (wrap32((int64_t)d - (int64_t)ys * t) >> sh);
			/* Past 46340 a component alone squares over 2^31: the JavaScript's exact test */
			if (vx > 46340 || vx < -46340 || vy > 46340 || vy < -46340 || vx * vx + vy * vy > 0x7fffffff) {
				why = STOP_PULL;
				break;
			}
			evx[i] = (int32_t)vx;
			evy[i] = (int32_t)vy;
		}
	}
	w[SW_COUNT] = n;
	w[SW_DOOMED] = dc;
	w[SW_WHY] = why;
	xsmcSetInteger(xsResult, k);
}

/* ------------------------------------------------------------------ entity sync */

enum { Y_DIRTY, Y_ALIVE, Y_GENERATION, Y_KNOWN, Y_OWNER, Y_TYPE, Y_ARENA, Y_ACTIONS, Y_CHANGED, Y_ACTIVE, Y_DIRTYANY, Y_COUNT };
enum {
	YW_CAPACITY, YW_WORDS, YW_ACTIONROOM, YW_HEADER, YW_ADDTYPE, YW_REMOVETYPE, YW_QUEUEBYTES, YW_KEEP, YW_USED,
	YW_SEQ, YW_MESSAGES, YW_STATE, YW_QUEUE0
};
enum { SYNC_DONE, SYNC_ROOM, SYNC_ACTIONS };

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * merge(layout, m0, m1, m2, m3, players): the indices added or removed since the last sync
 * (Server#markIndex sets one bit each) into the dirty bits of every active player of the
 * first `players` slots, which are marked as having some; then the changed set is cleared.
 */
void xs_lwar_merge(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t players = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * Y_COUNT;
	int32_t *dirty = I32(&m, Y_DIRTY), *changed = I32(&m, Y_CHANGED);
	const uint8_t *active = U8(&m, Y_ACTIVE);
	uint8_t *dirtyAny = U8(&m, Y_DIRTYANY);
	int32_t words = w[YW_WORDS], s, j;
	for (s = 0; s < players; s++) {
		if (active[s] == 0)
			continue;
		for (j = 0; j < words; j++)
			dirty[s * words + j] |= changed[j];
		dirtyAny[s] = 1;
	}
	for (j = 0; j < words; j++)
		changed[j] = 0;
}

/*
 * sync(layout, m0, m1, m2, m3, slot) -> actions
 *
 * Server#sync for one player. For each dirty index, while the queue keeps the line
 * (a packet's worth and the Leave reserve free): a Remove of what the player knows there
 * if that is gone or replaced, an Add of what lives there if the player does not know it,
 * each written as Endpoint.queue and #sendAdd/#sendRemove write them (seqno, type,
 * payload), with the known generation updated. The planner hears of each (added: the
 * index; removed: ~index) through the action list, which the JavaScript walks.
 */
void xs_lwar_sync(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t s = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * Y_COUNT;
	int32_t *dirty = I32(&m, Y_DIRTY);
	const uint8_t *alive = U8(&m, Y_ALIVE);
	const uint16_t *gen = U16(&m, Y_GENERATION);
	uint16_t *known = U16(&m, Y_KNOWN);
	const uint32_t *owner = U32(&m, Y_OWNER);
	const uint8_t *type = U8(&m, Y_TYPE);
	uint8_t *queue = U8(&m, Y_ARENA) + w[YW_QUEUE0 + s];
	int32_t *actions = I32(&m, Y_ACTIONS);
	int32_t cap = w[YW_CAPACITY], words = w[YW_WORDS], room = w[YW_ACTIONROOM], header = w[YW_HEADER];
	int32_t addType = w[YW_ADDTYPE], removeType = w[YW_REMOVETYPE], bytes = w[YW_QUEUEBYTES], keep = w[YW_KEEP];
	int32_t used = w[YW_USED];
	uint32_t seq = (uint32_t)w[YW_SEQ];
	int32_t messages = 0, n = 0, state = SYNC_DONE, j;
	for (j = 0; j < words && state == SYNC_DONE; j++) {
		int32_t at = s * words + j;
		uint32_t bits = (uint32_t)dirty[at];
		while (bits != 0) {
			uint32_t low;
			int32_t i, k, now;
			if (bytes - used < keep) {
				state = SYNC_ROOM;
				break;
			}
			if (n + 2 > room) {
				state = SYNC_ACTIONS;
				break;
			}
			low = bits & (0u - bits);
			i = (j << 5) + 31 - clz32(low);
			k = s * cap + i;
			now = alive[i] != 0 ? gen[i] : 0;
			if (known[k] != now) {
				if (known[k] != 0) {
					uint8_t *p = queue + used;
					put32(p, seq);
					p[4] = (uint8_t)removeType;
					put32(p + 5, ((uint32_t)known[k] << 16) | (uint32_t)i);
					used += header + 4;
					seq++;
					messages++;
					known[k] = 0;
					actions[n++] = ~i;
				}
				if (now != 0) {
					uint8_t *p = queue + used;
					put32(p, seq);
					p[4] = (uint8_t)addType;
					put32(p + 5, ((uint32_t)gen[i] << 16) | (uint32_t)i);
					put32(p + 9, owner[i]);
					p[13] = type[i];
					used += header + 9;
					seq++;
					messages++;
					known[k] = (uint16_t)now;
					actions[n++] = i;
				}
			}
			bits ^= low;
		}
		dirty[at] = (int32_t)bits;
	}
	w[YW_USED] = used;
	w[YW_SEQ] = (int32_t)seq;
	w[YW_MESSAGES] = messages;
	w[YW_STATE] = state;
	xsmcSetInteger(xsResult, n);
}

/* ------------------------------------------------------------------ spawn clearance */

enum { C_ALIVE, C_TYPE, C_RADIUS, C_X, C_Y, C_RSQRT, C_COUNT };
enum { CW_CAPACITY, CW_POSSHIFT, CW_ONE, CW_TEMPLATES, CW_OTHERPLUS, CW_WIDEOPEN, CW_WANT0 };

/*
 * Game#unit's length: |(dx, dy)| in dx's units, from the larger component shifted to 14
 * bits and 1/sqrt from a seed table and two Newton steps, exactly as the JavaScript does
 * it (each shift of a product applies to its value wrapped to 32 bits, as there).
 */
static int32_t lw_length(int32_t dx, int32_t dy, const uint16_t *seed, int32_t one)
{
	int32_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
	int32_t big = ax > ay ? ax : ay;
	int32_t k, a, b, n2, hi, y, ux, uy, len;
	if (big == 0)
		return 0;
	k = 18 - clz32((uint32_t)big);
	a = k > 0 ? ax >> k : wrap32((int64_t)ax << (0 - k));
	b = k > 0 ? ay >> k : wrap32((int64_t)ay << (0 - k));
	n2 = wrap32((int64_t)a * a + (int64_t)b * b);
	hi = n2 >> 14;
	y = seed[n2 >> 23];
	y = wrap32((int64_t)y * (3 * one - (wrap32((int64_t)hi * (wrap32((int64_t)y * y) >> 14)) >> 14))) >> 15;
	y = wrap32((int64_t)y * (3 * one - (wrap32((int64_t)hi * (wrap32((int64_t)y * y) >> 14)) >> 14))) >> 15;
	ux = wrap32((int64_t)a * y) >> 14;
	uy = wrap32((int64_t)b * y) >> 14;
	while ((int64_t)ux * ux + (int64_t)uy * uy > (int64_t)one * one) {
		if (ux > uy)
			ux--;
		else
			uy--;
	}
	len = wrap32((int64_t)a * ux + (int64_t)b * uy) >> 14;
	return k > 0 ? (int32_t)((uint32_t)len << k) : len >> (0 - k);
}

/* clearance(layout, m0, m1, m2, m3, x, y) -> Game#clearance(x, y) */
void xs_lwar_clearance(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t x = xsmcToInteger(xsArg(5));
	int32_t y = xsmcToInteger(xsArg(6));
	int32_t *w = m.words + 2 * C_COUNT;
	const uint8_t *alive = U8(&m, C_ALIVE), *type = U8(&m, C_TYPE), *radius = U8(&m, C_RADIUS);
	const int32_t *ex = I32(&m, C_X), *ey = I32(&m, C_Y);
	const uint16_t *seed = U16(&m, C_RSQRT);
	int32_t cap = w[CW_CAPACITY], shift = w[CW_POSSHIFT], one = w[CW_ONE], templates = w[CW_TEMPLATES];
	int32_t worst = w[CW_WIDEOPEN], i;
	for (i = 0; i < cap; i++) {
		int32_t t, want, dx, dy;
		if (alive[i] == 0)
			continue;
		t = type[i];
		/* A type past the templates wants what the sun does (its kind is undefined there) */
		want = t < templates ? (w[CW_WANT0 + 2 * t] ? radius[i] : 0) + w[CW_WANT0 + 2 * t + 1] : radius[i] + w[CW_OTHERPLUS];
		dx = wrap32((int64_t)ex[i] - x) >> shift;
		dy = wrap32((int64_t)ey[i] - y) >> shift;
		if ((int64_t)dx * dx + (int64_t)dy * dy >= (int64_t)want * want)
			continue;
		{
			int32_t c = lw_length(dx, dy, seed, one) - want;
			if (c < worst)
				worst = c;
		}
	}
	xsmcSetInteger(xsResult, worst);
}

/* ------------------------------------------------------------------ receive */

enum { R_RX, R_COUNT };
enum { RW_APPID, RW_INPUTTYPE, RW_FORWARD, RW_BACKWARD, RW_LEFT, RW_RIGHT, RW_SHOOTING, RW_ACK, RW_TIMESTAMP, RW_INPUT };
enum { PEEK_OTHER, PEEK_ACK, PEEK_ACKINPUT };

static inline int32_t get32(const uint8_t *p)
{
	return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

/*
 * peek(layout, m0, m1, m2, m3, length) -> kind
 *
 * Server#validate's fast path: a 14-byte packet with the app id and no messages is an ack
 * alone; a 20-byte one with the app id, no reliable messages and one unreliable Input is
 * an ack and an Input. Both are valid whatever their other bytes hold. For those the
 * header's ack and timestamp, and the Input as INPUT_* bits (a byte that is not zero is
 * true, as readInput reads it), go into the layout's results. Anything else: PEEK_OTHER,
 * and the JavaScript validates it.
 */
void xs_lwar_peek(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t length = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * R_COUNT;
	const uint8_t *rx = U8(&m, R_RX);
	int32_t kind = PEEK_OTHER;
	if ((length == 14 || length == 20) && get32(rx) == w[RW_APPID] && rx[12] == 0) {
		if (length == 14 && rx[13] == 0)
			kind = PEEK_ACK;
		else if (length == 20 && rx[13] == 1 && rx[14] == w[RW_INPUTTYPE]) {
			kind = PEEK_ACKINPUT;
			w[RW_INPUT] = (rx[15] ? w[RW_FORWARD] : 0) | (rx[16] ? w[RW_BACKWARD] : 0) | (rx[17] ? w[RW_LEFT] : 0) |
				(rx[18] ? w[RW_RIGHT] : 0) | (rx[19] ? w[RW_SHOOTING] : 0);
		}
		if (kind != PEEK_OTHER) {
			w[RW_ACK] = get32(rx + 4);
			w[RW_TIMESTAMP] = get32(rx + 8);
		}
	}
	xsmcSetInteger(xsResult, kind);
}

/* ------------------------------------------------------------------ ships */

enum {
	H_X, H_Y, H_VX, H_VY, H_ROT, H_TYPE, H_RADIUS, H_FOCUS, H_INPUT, H_PREVX, H_PREVY, H_SINE, H_GRAVITY, H_CONTACT,
	H_BODYINDEX, H_PULL, H_MASK, H_COUNT
};
enum {
	HW_SHIPBASE, HW_HEADINGS, HW_FORWARD, HW_BACKWARD, HW_LEFT, HW_RIGHT, HW_SHOOTING, HW_GRIDHALF, HW_GRIDSHIFT,
	HW_GRIDSIDE, HW_OCTMIN, HW_TMASK, HW_DSHIFT, HW_SSHIFT, HW_PLANETBIT, HW_PLANETBITS, HW_BODIES, HW_FARPULL, HW_ONE,
	HW_ARENARADIUS, HW_TURN0, HW_THRUST0 = HW_TURN0 + 4, HW_MAXSPEED0 = HW_THRUST0 + 4, HW_CLAMPSCALE0 = HW_MAXSPEED0 + 4,
	HW_STEPS = HW_CLAMPSCALE0 + 4, HW_DITHER, HW_TOUCHING, HW_COS, HW_SIN
};
enum { SHIP_MOVED, SHIP_EFFECTS, SHIP_REDO };

/*
 * ship(layout, m0, m1, m2, m3, slot) -> SHIP_MOVED, SHIP_EFFECTS or SHIP_REDO
 *
 * Game#moveShip for one ship, step for step: drift, turn and thrust by the input, the sun's
 * pull and each planet's (every step in the ship's grid cell, else every 4th step, 4 times
 * as hard), which bodies it touches, and the speed limit just over it. A ship that goes far
 * over its limit or past the arena's edge (both rare, and both need the integer square
 * root) is left as it was: SHIP_REDO, and the JavaScript moves it. Values that JavaScript
 * would hold as doubles (sums and products past 2^31) are 64-bit here, wrapped to 32 bits
 * where the JavaScript shifts them.
 */
void xs_lwar_ship(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * H_COUNT;
	int32_t *ex = I32(&m, H_X), *ey = I32(&m, H_Y), *evx = I32(&m, H_VX), *evy = I32(&m, H_VY), *erot = I32(&m, H_ROT);
	const uint8_t *type = U8(&m, H_TYPE), *radius = U8(&m, H_RADIUS), *inputs = U8(&m, H_INPUT);
	const int32_t *focus = I32(&m, H_FOCUS);
	int32_t *prevX = I32(&m, H_PREVX), *prevY = I32(&m, H_PREVY);
	const int16_t *sine = (const int16_t *)AT(&m, H_SINE);
	const int32_t *table = I32(&m, H_GRAVITY), *contact = I32(&m, H_CONTACT), *bodyIndex = I32(&m, H_BODYINDEX);
	const int32_t *pull = I32(&m, H_PULL), *mask = I32(&m, H_MASK);
	int32_t floor = 1 << w[HW_OCTMIN], tmask = w[HW_TMASK], dshift = w[HW_DSHIFT], sshift = w[HW_SSHIFT];
	int32_t gridHalf = w[HW_GRIDHALF], gridShift = w[HW_GRIDSHIFT], side = w[HW_GRIDSIDE], last = side - 1;
	int32_t planets = w[HW_PLANETBITS], bodies = w[HW_BODIES], one = w[HW_ONE];
	int32_t steps = w[HW_STEPS], dither = w[HW_DITHER];
	int32_t i = focus[slot], st, input, rot, q, c, s, row, touching, xs, ys, g, t, sh, d, cx, cy, near, b;
	int32_t x0, y0, mx;
	int64_t x, y, vx, vy, u, lim;
	uint32_t left;
	if (i < 0)
		return;
	st = type[i] - w[HW_SHIPBASE];
	input = inputs[slot];
	x0 = ex[i];
	y0 = ey[i];
	vx = evx[i];
	vy = evy[i];
	x = (int64_t)x0 + vx;
	y = (int64_t)y0 + vy;

	rot = erot[i];
	if (input & w[HW_LEFT])
		rot += w[HW_TURN0 + st];
	if (input & w[HW_RIGHT])
		rot -= w[HW_TURN0 + st];
	rot &= w[HW_HEADINGS];
	q = (rot >> 2) & 255;
	switch (rot >> 10) {
	case 0: c = sine[256 - q]; s = sine[q]; break;
	case 1: c = 0 - sine[q]; s = sine[256 - q]; break;
	case 2: c = 0 - sine[256 - q]; s = 0 - sine[q]; break;
	default: c = sine[q]; s = 0 - sine[256 - q]; break;
	}
	if (input & (w[HW_FORWARD] | w[HW_BACKWARD])) {
		t = 0;
		if (input & w[HW_FORWARD])
			t += w[HW_THRUST0 + st];
		if (input & w[HW_BACKWARD])
			t -= w[HW_THRUST0 + st] >> 1;
		vx += wrap32((int64_t)c * t + 8192) >> 14;
		vy += wrap32((int64_t)s * t + 8192) >> 14;
	}

	/* the sun */
	xs = wrap32(x) >> 7;
	ys = wrap32(y) >> 7;
	u = (int64_t)xs * xs + (int64_t)ys * ys;
	row = st * bodies;
	touching = u < contact[row] ? 1 : 0;
	t = lw_gravity(table, wrap32(u), floor, tmask, dshift, &g);
	sh = g >> sshift;
	d = sar(dither, 31 - sh);
	vx += sar(wrap32((int64_t)d - (int64_t)xs * t), sh);
	vy += sar(wrap32((int64_t)d - (int64_t)ys * t), sh);

	/* the planets */
	cx = wrap32(x + gridHalf) >> gridShift;
	cy = wrap32(y + gridHalf) >> gridShift;
	cx = cx < 0 ? 0 : cx > last ? last : cx;
	cy = cy < 0 ? 0 : cy > last ? last : cy;
	near = (mask[cy * side + cx] >> w[HW_PLANETBIT]) & planets;
	for (left = (uint32_t)(near | ((0x1111 << (3 - ((steps + slot) & 3))) & planets)); left != 0; left &= left - 1) {
		int32_t p, far, pm;
		int64_t px, py;
		b = 32 - clz32(left & (0u - left));
		far = (near >> (b - 1)) & 1 ? 0 : w[HW_FARPULL];
		p = bodyIndex[b];
		xs = wrap32((int64_t)ex[p] - x) >> 7;
		ys = wrap32((int64_t)ey[p] - y) >> 7;
		u = (int64_t)xs * xs + (int64_t)ys * ys;
		if (u < contact[row + b])
			touching |= 1 << b;
		t = lw_gravity(table, wrap32(u), floor, tmask, dshift, &g);
		sh = (g >> sshift) - far;
		pm = pull[b];
		sh += pm >> 16;
		pm &= 0xffff;
		if (sh <= 30) {
			px = (int64_t)(wrap32((int64_t)xs * t) >> 10) * pm;
			py = (int64_t)(wrap32((int64_t)ys * t) >> 10) * pm;
		} else {
			px = (int64_t)(wrap32((int64_t)xs * t) >> 16) * pm;
			py = (int64_t)(wrap32((int64_t)ys * t) >> 16) * pm;
			sh -= 6;
		}
		d = sar(dither, 31 - sh);
		vx += sar(wrap32(px + d), sh);
		vy += sar(wrap32(py + d), sh);
	}

	/* the speed limit: just over it here, far over it in the JavaScript (#clamp) */
	mx = w[HW_MAXSPEED0 + st];
	lim = (int64_t)mx * mx;
	if (vx > 0x3fffffff || vx < -0x3fffffff || vy > 0x3fffffff || vy < -0x3fffffff)
		goto redo;
	u = vx * vx + vy * vy;
	if (u > lim) {
		int32_t tt;
		if (u > lim + (lim >> 2))
			goto redo;
		q = (wrap32((int64_t)((wrap32(u) >> 14) + 1) * w[HW_CLAMPSCALE0 + st]) >> 14) + 1;
		tt = (3 * one - q) >> 1;
		tt = wrap32((int64_t)tt * (3 * one - (wrap32((int64_t)q * (wrap32((int64_t)tt * tt) >> 14)) >> 14))) >> 15;
		vx = vx < 0 ? 0 - (wrap32((0 - vx) * tt) >> 14) : wrap32(vx * tt) >> 14;
		vy = vy < 0 ? 0 - (wrap32((0 - vy) * tt) >> 14) : wrap32(vy * tt) >> 14;
	}

	/* the arena's edge: the JavaScript (#edge) */
	xs = wrap32(x) >> 7;
	ys = wrap32(y) >> 7;
	{
		int64_t lm = (int64_t)(w[HW_ARENARADIUS] - radius[i]) << 3;
		if ((int64_t)xs * xs + (int64_t)ys * ys > (lm - 8) * (lm - 8) && x * x + y * y > (lm << 7) * (lm << 7))
			goto redo;
	}
	prevX[slot] = x0;
	prevY[slot] = y0;
	ex[i] = wrap32(x);
	ey[i] = wrap32(y);
	evx[i] = wrap32(vx);
	evy[i] = wrap32(vy);
	erot[i] = rot;
	w[HW_TOUCHING] = touching;
	w[HW_COS] = c;
	w[HW_SIN] = s;
	xsmcSetInteger(xsResult, touching != 0 || (input & w[HW_SHOOTING]) ? SHIP_EFFECTS : SHIP_MOVED);
	return;
redo:
	xsmcSetInteger(xsResult, SHIP_REDO);
}
