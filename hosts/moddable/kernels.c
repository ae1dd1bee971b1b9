/*
 * Native inner loops of the server and the game: the priority planner's plan, commit and
 * bookkeeping of Adds and Removes, the Update entry loop, the entity sync, the projectiles'
 * flight and the ships' step. The JavaScript they mirror is the reference
 * (modules/server/updates.ts PriorityPlanner, modules/server/entries.ts and
 * modules/server/entity-sync.ts, modules/game/shots.ts JsShotsStep and modules/game/ships.ts
 * JsShipsStep); the interface and the calling convention are in modules/native.ts. The
 * array and word numbers, the wire offsets the loops write at and every other constant
 * they use (LW_*) come from kernels.h, generated from modules/native-layout.ts,
 * modules/protocol/constants.ts, modules/server/updates.ts and modules/game/entities.ts
 * (npm run build:native-header); nothing here declares its own.
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
#include "kernels.h"

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
 * The game's gravity table read as ships.ts and shots.ts read it (the layout and OCT_MIN are
 * in modules/game/gravity.ts): for u, r² at 1/8 wu (as JavaScript's int32 of it), the pull's
 * value, and the table word, whose top bits are the shift, in *word.
 */
static inline int32_t lw_gravity(const int32_t *table, int32_t u, int32_t floor, int32_t tmask, int32_t dshift, int32_t *word)
{
	int32_t oct = 31 - clz32((uint32_t)(u | floor));
	int32_t g = table[(oct << 5) + sar(u, oct - 5) - 512];
	*word = g;
	return (g & tmask) - ((((g >> dshift) & 1023) * (sar(u, oct - 13) & 255)) >> 8);
}

/* ------------------------------------------------------------------ planner */

/* plan(layout, m0, m1, m2, m3, slot) -> count */
void xs_lwar_plan(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * PLAN_MEMS;
	int32_t words = w[PLAN_WORD_WORDS];
	int32_t *sets = I32(&m, PLAN_MEM_SETS);
	int32_t *ticks = I32(&m, PLAN_MEM_TICK);
	uint16_t *list = U16(&m, PLAN_MEM_LIST);
	int32_t tick = ticks[slot] + 1;
	int32_t base = slot * LW_SETS * words;
	int32_t own = w[PLAN_WORD_HAS_FOCUS] ? I32(&m, PLAN_MEM_FOCUS_INDEX)[slot] : -1;
	int32_t limit = w[PLAN_WORD_LIMIT];
	int32_t n = 0;
	int32_t wheel, set;
	ticks[slot] = tick;
	if (own >= 0 && U8(&m, PLAN_MEM_KNOWN)[slot * w[PLAN_WORD_CAPACITY] + own] != 0)
		list[n++] = (uint16_t)own;
	w[PLAN_WORD_OWN_END] = n;
	wheel = 2 + 2 * (tick & (LW_WHEEL - 1));
	for (set = 0; set < 4; set++) {
		int32_t from = base + (set < 2 ? set : wheel + set - 2) * words;
		int32_t start = set == LW_CARRIED ? I32(&m, PLAN_MEM_CURSOR)[slot] : 0;
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
		if (set == LW_FRESH)
			w[PLAN_WORD_FRESH_END] = n;
		else if (set == LW_CARRIED)
			w[PLAN_WORD_CARRIED_END] = n;
	}
	w[PLAN_WORD_PLANNED] = n;
	xsmcSetInteger(xsResult, n);
}

/* commit(layout, m0, m1, m2, m3, slot, sent) */
void xs_lwar_commit(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t sent = xsmcToInteger(xsArg(6));
	int32_t *w = m.words + 2 * PLAN_MEMS;
	const int32_t *ex = I32(&m, PLAN_MEM_X), *ey = I32(&m, PLAN_MEM_Y), *evx = I32(&m, PLAN_MEM_VX), *evy = I32(&m, PLAN_MEM_VY);
	const uint32_t *owner = U32(&m, PLAN_MEM_OWNER);
	const uint8_t *steady = w[PLAN_WORD_HAS_STEADY] ? U8(&m, PLAN_MEM_STEADY) : NULL;
	const uint16_t *list = U16(&m, PLAN_MEM_LIST);
	int32_t *sets = I32(&m, PLAN_MEM_SETS);
	int32_t words = w[PLAN_WORD_WORDS];
	int32_t cap = w[PLAN_WORD_CAPACITY];
	int32_t tick = I32(&m, PLAN_MEM_TICK)[slot];
	int32_t base = slot * LW_SETS * words;
	int32_t fx = w[PLAN_WORD_HAS_FOCUS] ? I32(&m, PLAN_MEM_FOCUS_X)[slot] : 0;
	int32_t fy = w[PLAN_WORD_HAS_FOCUS] ? I32(&m, PLAN_MEM_FOCUS_Y)[slot] : 0;
	int32_t shift = w[PLAN_WORD_POS_SHIFT];
	int32_t near = w[PLAN_WORD_NEAR], mid = w[PLAN_WORD_MID], far = w[PLAN_WORD_FAR];
	int32_t n = w[PLAN_WORD_PLANNED], ownEnd = w[PLAN_WORD_OWN_END], freshEnd = w[PLAN_WORD_FRESH_END], carriedEnd = w[PLAN_WORD_CARRIED_END];
	int32_t cursor = -1;
	int32_t k, j, due, carried;
	for (k = 0; k < n; k++) {
		int32_t i = list[k];
		int32_t set;
		if (k >= sent)
			set = k >= ownEnd && k < freshEnd ? LW_FRESH : LW_CARRIED;
		else {
			int32_t by;
			if (owner[i] == LW_NO_PLAYER || (evx[i] == 0 && evy[i] == 0))
				by = LW_MAX_UPDATE_GAP;
			else {
				int32_t dx = wrap32((int64_t)ex[i] - fx) >> shift;
				int32_t dy = wrap32((int64_t)ey[i] - fy) >> shift;
				int32_t d;
				if (dx < 0)
					dx = -dx;
				if (dy < 0)
					dy = -dy;
				d = dx > dy ? dx + ((dy * 13) >> 5) : dy + ((dx * 13) >> 5);
				by = d < near ? 1 : d < mid ? 2 : d < far ? 3 : LW_MAX_UPDATE_GAP;
				if (by < 2 && steady != NULL && steady[i] != 0)
					by = 2;
			}
			set = 2 + 2 * ((tick + by) & (LW_WHEEL - 1)) + (by == LW_MAX_UPDATE_GAP ? 0 : 1);
			if (k >= freshEnd && k < carriedEnd)
				cursor = i + 1;
		}
		sets[base + set * words + (i >> 5)] |= (int32_t)(1u << (i & 31));
	}
	if (cursor >= 0)
		I32(&m, PLAN_MEM_CURSOR)[slot] = cursor < cap ? cursor : 0;
	due = base + (2 + 2 * (tick & (LW_WHEEL - 1))) * words;
	carried = base + LW_CARRIED * words;
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
	int32_t *w = m.words + 2 * PLAN_MEMS;
	int32_t *sets = I32(&m, PLAN_MEM_SETS);
	uint8_t *known = U8(&m, PLAN_MEM_KNOWN);
	const int32_t *actions = I32(&m, PLAN_MEM_ACTIONS);
	int32_t words = w[PLAN_WORD_WORDS], cap = w[PLAN_WORD_CAPACITY];
	int32_t base = slot * LW_SETS * words;
	int32_t j;
	for (j = 0; j < n; j++) {
		int32_t a = actions[j];
		int32_t i = a < 0 ? ~a : a;
		int32_t k = slot * cap + i;
		int32_t first = base + (i >> 5), end = first + LW_SETS * words, at;
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
	int32_t *w = m.words + 2 * PACK_MEMS;
	uint8_t *all = U8(&m, PACK_MEM_ENTRIES);
	uint8_t *encoded = U8(&m, PACK_MEM_ENCODED);
	const int32_t *ex = I32(&m, PACK_MEM_X), *ey = I32(&m, PACK_MEM_Y), *evx = I32(&m, PACK_MEM_VX), *evy = I32(&m, PACK_MEM_VY), *erot = I32(&m, PACK_MEM_ROT);
	const uint8_t *health = U8(&m, PACK_MEM_HEALTH);
	const uint16_t *list = U16(&m, PACK_MEM_LIST);
	int32_t maxPacket = w[PACK_WORD_MAX_PACKET], entry = LW_UPDATE_ENTRY, hz = w[PACK_WORD_STEP_HZ];
	int32_t shift = w[PACK_WORD_POS_SHIFT], angleBits = w[PACK_WORD_ANGLE_BITS], centi = w[PACK_WORD_CENTIDEGREES];
	int32_t half = 1 << (shift - 1), angleHalf = 1 << (angleBits - 1), angleMask = (1 << angleBits) - 1;
	int32_t room = maxPacket - entry;
	int32_t k = 0;
	while (pos < n && o <= room && k < 255) {
		int32_t i = list[pos];
		uint8_t *at = all + maxPacket + i * entry;
		if (encoded[i] == 0) {
			int32_t v;
			put16(at + LW_ENTRY_X, clamp16(wrap32((int64_t)ex[i] + half) >> shift));
			put16(at + LW_ENTRY_Y, clamp16(wrap32((int64_t)ey[i] + half) >> shift));
			put16(at + LW_ENTRY_VX, clamp16(wrap32((int64_t)evx[i] * hz + half) >> shift));
			put16(at + LW_ENTRY_VY, clamp16(wrap32((int64_t)evy[i] * hz + half) >> shift));
			put16(at + LW_ENTRY_ROT, wrap32((int64_t)(erot[i] & angleMask) * centi + angleHalf) >> angleBits);
			v = health[i];
			at[LW_ENTRY_HEALTH] = (uint8_t)(v > 100 ? 100 : v);
			encoded[i] = 1;
		}
		memcpy(all + o, at, entry);
		pos++;
		o += entry;
		k++;
	}
	w[PACK_WORD_O] = o;
	w[PACK_WORD_K] = k;
	xsmcSetInteger(xsResult, pos);
}

/* ------------------------------------------------------------------ projectiles */

/* geometrySweep (modules/game/geometry.ts): whether a point moving from d0 to d1 (relative) passes within r of 0 */
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
 * JsShotsStep.move (modules/game/shots.ts) from list[k] on, with shotsCollide's tests: a projectile whose time is
 * up is doomed; the others move; one whose grid cell holds something is tested against the
 * sun and the arena's edge, the planets and the ships, in that order, and doomed by the
 * first it meets; the rest get twice the sun's pull every other step (by index parity).
 * It stops and hands list[k] back to the JavaScript when it hits a ship (SHOT_STOP_HIT, with the
 * slot: the damage is the game's business, shotsHit), or when its pull leaves the plain
 * integer range (SHOT_STOP_PULL: u at or over 2^31, or a speed that may need the cap; shotsPull
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
	int32_t *w = m.words + 2 * SHOT_MEMS;
	int32_t *ex = I32(&m, SHOT_MEM_X), *ey = I32(&m, SHOT_MEM_Y), *evx = I32(&m, SHOT_MEM_VX), *evy = I32(&m, SHOT_MEM_VY);
	const uint32_t *owner = U32(&m, SHOT_MEM_OWNER);
	const uint8_t *type = U8(&m, SHOT_MEM_TYPE);
	uint16_t *list = U16(&m, SHOT_MEM_LIST);
	uint16_t *doomed = U16(&m, SHOT_MEM_DOOMED);
	const int32_t *expires = I32(&m, SHOT_MEM_EXPIRES);
	const int32_t *gravity = I32(&m, SHOT_MEM_GRAVITY);
	const uint8_t *radius = U8(&m, SHOT_MEM_RADIUS);
	const int32_t *bodyIndex = I32(&m, SHOT_MEM_BODY_INDEX), *focusIndex = I32(&m, SHOT_MEM_FOCUS_INDEX);
	const int16_t *hp = (const int16_t *)AT(&m, SHOT_MEM_HP);
	const uint32_t *playerId = U32(&m, SHOT_MEM_PLAYER_ID);
	const int32_t *prevX = I32(&m, SHOT_MEM_PREV_X), *prevY = I32(&m, SHOT_MEM_PREV_Y);
	const int32_t *bodyPrevX = I32(&m, SHOT_MEM_BODY_PREV_X), *bodyPrevY = I32(&m, SHOT_MEM_BODY_PREV_Y);
	const int32_t *mask = I32(&m, SHOT_MEM_MASK);
	int32_t gridHalf = w[SHOT_WORD_GRID_HALF], gridShift = w[SHOT_WORD_GRID_SHIFT], side = w[SHOT_WORD_GRID_SIDE];
	int64_t cells = (int64_t)side * side;
	int32_t floor = 1 << w[SHOT_WORD_OCT_MIN];
	int32_t tmask = w[SHOT_WORD_T_MASK], dshift = w[SHOT_WORD_D_SHIFT], sshift = w[SHOT_WORD_S_SHIFT];
	int32_t zones = w[SHOT_WORD_ZONES], planetBit = w[SHOT_WORD_PLANET_BIT], shipBit = w[SHOT_WORD_SHIP_BIT], planetBits = w[SHOT_WORD_PLANET_BITS];
	int32_t sunRadius = w[SHOT_WORD_SUN_RADIUS], arenaR2 = w[SHOT_WORD_ARENA_R2], planetNear = w[SHOT_WORD_PLANET_NEAR], reach = w[SHOT_WORD_REACH];
	int32_t armSteps = w[SHOT_WORD_ARM_STEPS], shotBase = w[SHOT_WORD_SHOT_BASE];
	int32_t steps = w[SHOT_WORD_STEPS], parity = steps & 1, dither = w[SHOT_WORD_DITHER];
	int32_t why = SHOT_STOP_DONE;
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
			/* shotsCollide, with x and y as the table holds them */
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
				if (owner[i] == playerId[b] && steps - expires[i] + w[SHOT_WORD_LIFE + type[i] - shotBase] < armSteps)
					continue;
				r = (radius[o] + radius[i]) << 1;
				if (lw_sweep(wrap32((int64_t)px - vx0 - prevX[b]) >> 9, wrap32((int64_t)py - vy0 - prevY[b]) >> 9,
						(int32_t)dx >> 9, (int32_t)dy >> 9, r)) {
					w[SHOT_WORD_SLOT] = b;
					why = SHOT_STOP_HIT;
					break;
				}
			}
			if (why != SHOT_STOP_DONE)
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
				why = SHOT_STOP_PULL;
				break;
			}
			t = lw_gravity(gravity, (int32_t)u64, floor, tmask, dshift, &g);
			sh = (g >> sshift) - 1;
			d = dither >> (31 - sh);
			vx = (int64_t)vx0 + (wrap32((int64_t)d - (int64_t)xs * t) >> sh);
			vy = (int64_t)vy0 + (wrap32((int64_t)d - (int64_t)ys * t) >> sh);
			/* Past 46340 a component alone squares over 2^31: the JavaScript's exact test */
			if (vx > 46340 || vx < -46340 || vy > 46340 || vy < -46340 || vx * vx + vy * vy > 0x7fffffff) {
				why = SHOT_STOP_PULL;
				break;
			}
			evx[i] = (int32_t)vx;
			evy[i] = (int32_t)vy;
		}
	}
	w[SHOT_WORD_LISTED] = n;
	w[SHOT_WORD_DOOMED] = dc;
	w[SHOT_WORD_WHY] = why;
	xsmcSetInteger(xsResult, k);
}

/* ------------------------------------------------------------------ entity sync */

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/*
 * sync(layout, m0, m1, m2, m3, slot) -> actions
 *
 * The entity sync of one player (entity-sync.ts). For each dirty index, while the queue
 * keeps the line (a packet's worth and the Leave reserve free): a Remove of what the
 * player knows there if that is gone or replaced, an Add of what lives there if the
 * player does not know it, each written as Endpoint.queue and EntityReconciler.add/remove
 * write them (seqno, type, payload), with the known generation updated. The planner
 * hears of each (added: the index; removed: ~index) through the action list, which the
 * JavaScript walks.
 */
void xs_lwar_sync(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t s = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * SYNC_MEMS;
	int32_t *dirty = I32(&m, SYNC_MEM_DIRTY);
	const uint8_t *alive = U8(&m, SYNC_MEM_ALIVE);
	const uint16_t *gen = U16(&m, SYNC_MEM_GENERATION);
	uint16_t *known = U16(&m, SYNC_MEM_KNOWN);
	const uint32_t *owner = U32(&m, SYNC_MEM_OWNER);
	const uint8_t *type = U8(&m, SYNC_MEM_TYPE);
	uint8_t *queue = U8(&m, SYNC_MEM_ARENA) + w[SYNC_WORD_QUEUE + s];
	int32_t *actions = I32(&m, SYNC_MEM_ACTIONS);
	int32_t cap = w[SYNC_WORD_CAPACITY], words = w[SYNC_WORD_WORDS], room = w[SYNC_WORD_ACTION_ROOM];
	int32_t bytes = w[SYNC_WORD_QUEUE_BYTES], keep = w[SYNC_WORD_KEEP];
	int32_t used = w[SYNC_WORD_USED];
	uint32_t seq = (uint32_t)w[SYNC_WORD_SEQ];
	int32_t messages = 0, n = 0, state = SYNC_STOP_DONE, j;
	for (j = 0; j < words && state == SYNC_STOP_DONE; j++) {
		int32_t at = s * words + j;
		uint32_t bits = (uint32_t)dirty[at];
		while (bits != 0) {
			uint32_t low;
			int32_t i, k, now;
			if (bytes - used < keep) {
				state = SYNC_STOP_ROOM;
				break;
			}
			if (n + 2 > room) {
				state = SYNC_STOP_ACTIONS;
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
					p[4] = LW_MSG_REMOVE;
					put32(p + LW_RELIABLE_HEADER, ((uint32_t)known[k] << 16) | (uint32_t)i);
					used += LW_RELIABLE_HEADER + LW_REMOVE_SIZE;
					seq++;
					messages++;
					known[k] = 0;
					actions[n++] = ~i;
				}
				if (now != 0) {
					uint8_t *p = queue + used;
					uint8_t *add = p + LW_RELIABLE_HEADER;
					put32(p, seq);
					p[4] = LW_MSG_ADD;
					put32(add + LW_ADD_ENTITY_ID, ((uint32_t)gen[i] << 16) | (uint32_t)i);
					put32(add + LW_ADD_PLAYER_ID, owner[i]);
					add[LW_ADD_TYPE_ID] = type[i];
					used += LW_RELIABLE_HEADER + LW_ADD_SIZE;
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
	w[SYNC_WORD_USED] = used;
	w[SYNC_WORD_SEQ] = (int32_t)seq;
	w[SYNC_WORD_MESSAGES] = messages;
	w[SYNC_WORD_STATE] = state;
	xsmcSetInteger(xsResult, n);
}

/* ------------------------------------------------------------------ ships */

/*
 * ship(layout, m0, m1, m2, m3, slot) -> SHIP_STOP_MOVED, SHIP_STOP_EFFECTS or SHIP_STOP_REDO
 *
 * JsShipsStep.ship (modules/game/ships.ts) for one ship, step for step: drift, turn and thrust by the input, the sun's
 * pull and each planet's (every step in the ship's grid cell, else every 4th step, 4 times
 * as hard), which bodies it touches, and the speed limit just over it. A ship that goes far
 * over its limit or past the arena's edge (both rare, and both need the integer square
 * root) is left as it was: SHIP_STOP_REDO, and the JavaScript moves it. Values that JavaScript
 * would hold as doubles (sums and products past 2^31) are 64-bit here, wrapped to 32 bits
 * where the JavaScript shifts them.
 */
void xs_lwar_ship(xsMachine *the)
{
	lw_mem m;
	lw_bind(the, &m);
	int32_t slot = xsmcToInteger(xsArg(5));
	int32_t *w = m.words + 2 * SHIP_MEMS;
	int32_t *ex = I32(&m, SHIP_MEM_X), *ey = I32(&m, SHIP_MEM_Y), *evx = I32(&m, SHIP_MEM_VX), *evy = I32(&m, SHIP_MEM_VY), *erot = I32(&m, SHIP_MEM_ROT);
	const uint8_t *type = U8(&m, SHIP_MEM_TYPE), *radius = U8(&m, SHIP_MEM_RADIUS), *inputs = U8(&m, SHIP_MEM_INPUT);
	const int32_t *focus = I32(&m, SHIP_MEM_FOCUS_INDEX);
	int32_t *prevX = I32(&m, SHIP_MEM_PREV_X), *prevY = I32(&m, SHIP_MEM_PREV_Y);
	const int16_t *sine = (const int16_t *)AT(&m, SHIP_MEM_SINE);
	const int32_t *table = I32(&m, SHIP_MEM_GRAVITY), *contact = I32(&m, SHIP_MEM_CONTACT), *bodyIndex = I32(&m, SHIP_MEM_BODY_INDEX);
	const int32_t *pull = I32(&m, SHIP_MEM_PULL), *mask = I32(&m, SHIP_MEM_MASK);
	int32_t floor = 1 << w[SHIP_WORD_OCT_MIN], tmask = w[SHIP_WORD_T_MASK], dshift = w[SHIP_WORD_D_SHIFT], sshift = w[SHIP_WORD_S_SHIFT];
	int32_t gridHalf = w[SHIP_WORD_GRID_HALF], gridShift = w[SHIP_WORD_GRID_SHIFT], side = w[SHIP_WORD_GRID_SIDE], last = side - 1;
	int32_t planets = w[SHIP_WORD_PLANET_BITS], bodies = w[SHIP_WORD_BODIES], one = w[SHIP_WORD_ONE];
	int32_t steps = w[SHIP_WORD_STEPS], dither = w[SHIP_WORD_DITHER];
	int32_t i = focus[slot], st, input, rot, q, c, s, row, touching, xs, ys, g, t, sh, d, cx, cy, near, b;
	int32_t x0, y0, mx;
	int64_t x, y, vx, vy, u, lim;
	uint32_t left;
	if (i < 0)
		return;
	st = type[i] - w[SHIP_WORD_SHIP_BASE];
	input = inputs[slot];
	x0 = ex[i];
	y0 = ey[i];
	vx = evx[i];
	vy = evy[i];
	x = (int64_t)x0 + vx;
	y = (int64_t)y0 + vy;

	rot = erot[i];
	if (input & w[SHIP_WORD_LEFT])
		rot += w[SHIP_WORD_TURN + st];
	if (input & w[SHIP_WORD_RIGHT])
		rot -= w[SHIP_WORD_TURN + st];
	rot &= w[SHIP_WORD_HEADINGS];
	q = (rot >> 2) & 255;
	switch (rot >> 10) {
	case 0: c = sine[256 - q]; s = sine[q]; break;
	case 1: c = 0 - sine[q]; s = sine[256 - q]; break;
	case 2: c = 0 - sine[256 - q]; s = 0 - sine[q]; break;
	default: c = sine[q]; s = 0 - sine[256 - q]; break;
	}
	if (input & (w[SHIP_WORD_FORWARD] | w[SHIP_WORD_BACKWARD])) {
		t = 0;
		if (input & w[SHIP_WORD_FORWARD])
			t += w[SHIP_WORD_THRUST + st];
		if (input & w[SHIP_WORD_BACKWARD])
			t -= w[SHIP_WORD_THRUST + st] >> 1;
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
	near = (mask[cy * side + cx] >> w[SHIP_WORD_PLANET_BIT]) & planets;
	for (left = (uint32_t)(near | ((0x1111 << (3 - ((steps + slot) & 3))) & planets)); left != 0; left &= left - 1) {
		int32_t p, far, pm;
		int64_t px, py;
		b = 32 - clz32(left & (0u - left));
		far = (near >> (b - 1)) & 1 ? 0 : w[SHIP_WORD_FAR_PULL];
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
	mx = w[SHIP_WORD_MAX_SPEED + st];
	lim = (int64_t)mx * mx;
	if (vx > 0x3fffffff || vx < -0x3fffffff || vy > 0x3fffffff || vy < -0x3fffffff)
		goto redo;
	u = vx * vx + vy * vy;
	if (u > lim) {
		int32_t tt;
		if (u > lim + (lim >> 2))
			goto redo;
		q = (wrap32((int64_t)((wrap32(u) >> 14) + 1) * w[SHIP_WORD_CLAMP_SCALE + st]) >> 14) + 1;
		tt = (3 * one - q) >> 1;
		tt = wrap32((int64_t)tt * (3 * one - (wrap32((int64_t)q * (wrap32((int64_t)tt * tt) >> 14)) >> 14))) >> 15;
		vx = vx < 0 ? 0 - (wrap32((0 - vx) * tt) >> 14) : wrap32(vx * tt) >> 14;
		vy = vy < 0 ? 0 - (wrap32((0 - vy) * tt) >> 14) : wrap32(vy * tt) >> 14;
	}

	/* the arena's edge: the JavaScript (#edge) */
	xs = wrap32(x) >> 7;
	ys = wrap32(y) >> 7;
	{
		int64_t lm = (int64_t)(w[SHIP_WORD_ARENA_RADIUS] - radius[i]) << 3;
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
	w[SHIP_WORD_TOUCHING] = touching;
	w[SHIP_WORD_COS] = c;
	w[SHIP_WORD_SIN] = s;
	xsmcSetInteger(xsResult, touching != 0 || (input & w[SHIP_WORD_SHOOTING]) ? SHIP_STOP_EFFECTS : SHIP_STOP_MOVED);
	return;
redo:
	xsmcSetInteger(xsResult, SHIP_STOP_REDO);
}
