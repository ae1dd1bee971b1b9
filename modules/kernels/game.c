/*
 * The game's step (modules/game/game.ts, Game.step) in C, and nowhere else: the planets'
 * orbits and grid marks, spawns falling due, every ship's step (loops.c's lw_ship_in) with
 * what it touches and its fire, the grid marks of the ships and their rams, the
 * projectiles' flight, damage, and the end of the step (spent projectiles, dead ships,
 * where each ship is). modules/game/step-native.ts drives it.
 *
 * One call runs as far as it can; it stops where the JavaScript must act, which is where the
 * entity table changes (its listener is the server's) or something rare needs doubles or the
 * random generator: a ship due (spawn.ts), a projectile to add (the table), two ships that
 * touched (their bounce, ships.ts), the doomed projectiles to remove, a ship that died
 * (deaths.ts, with the death hook). The step's own words say where it stopped (`phase`,
 * `next`, ...); the next call, with GAME_RUN_RESUME, takes the JavaScript's answer and goes
 * on from there, so the world changes in the order the JavaScript step it replaced changed
 * it. Nothing here keeps state between calls but those words.
 *
 * Included after loops.c by the glue files (hosts/moddable/kernels.c, wasm.c): the ship
 * loop, the gravity table, the unit vector and the integer helpers are there. Its numbers
 * come from layout.h and the binding's words, like the rest.
 */

/* Where the step is: each stop leaves the phase that its resume goes on with. */
enum { LW_PHASE_IDLE, LW_PHASE_SPAWNS, LW_PHASE_SHIPS, LW_PHASE_FIRED, LW_PHASE_COLLIDE, LW_PHASE_RAMMED, LW_PHASE_DEATHS };

/* The binding's arrays, found once a call */
typedef struct {
	lw_mem m;
	int32_t *w;
	int32_t *x, *y, *vx, *vy, *rot, *focus, *prevX, *prevY, *expires, *respawn, *guard, *focusX, *focusY;
	int32_t *bodyPrevX, *bodyPrevY, *markX, *markY, *mask;
	const int32_t *gravity, *bodyIndex, *phase, *omega, *r32, *speed;
	uint8_t *type, *radius, *health, *steady, *present, *newcomer, *killedWith;
	const uint8_t *input, *selected, *shipType, *weaponType;
	uint16_t *list, *doomed, *cooldown, *base;
	int16_t *hp;
	const int16_t *sine;
	uint32_t *owner, *killer, *counters;
	const uint32_t *playerId;
	const uint16_t *seed;
} lw_game_mem;

static void lw_game_bind(lw_game_mem *g, const lw_mem *mp)
{
	lw_mem *m = &g->m;
	*m = *mp;
	g->w = m->words + 2 * GAME_MEMS;
	g->x = I32(m, GAME_MEM_X);
	g->y = I32(m, GAME_MEM_Y);
	g->vx = I32(m, GAME_MEM_VX);
	g->vy = I32(m, GAME_MEM_VY);
	g->rot = I32(m, GAME_MEM_ROT);
	g->focus = I32(m, GAME_MEM_FOCUS_INDEX);
	g->prevX = I32(m, GAME_MEM_PREV_X);
	g->prevY = I32(m, GAME_MEM_PREV_Y);
	g->expires = I32(m, GAME_MEM_EXPIRES);
	g->respawn = I32(m, GAME_MEM_RESPAWN_STEP);
	g->guard = I32(m, GAME_MEM_GUARD_UNTIL);
	g->focusX = I32(m, GAME_MEM_FOCUS_X);
	g->focusY = I32(m, GAME_MEM_FOCUS_Y);
	g->bodyPrevX = I32(m, GAME_MEM_BODY_PREV_X);
	g->bodyPrevY = I32(m, GAME_MEM_BODY_PREV_Y);
	g->markX = I32(m, GAME_MEM_MARK_X);
	g->markY = I32(m, GAME_MEM_MARK_Y);
	g->mask = I32(m, GAME_MEM_MASK);
	g->gravity = I32(m, GAME_MEM_GRAVITY);
	g->bodyIndex = I32(m, GAME_MEM_BODY_INDEX);
	g->phase = I32(m, GAME_MEM_ORBIT_PHASE);
	g->omega = I32(m, GAME_MEM_ORBIT_OMEGA);
	g->r32 = I32(m, GAME_MEM_ORBIT_R32);
	g->speed = I32(m, GAME_MEM_ORBIT_SPEED);
	g->type = U8(m, GAME_MEM_TYPE);
	g->radius = U8(m, GAME_MEM_RADIUS);
	g->health = U8(m, GAME_MEM_HEALTH);
	g->steady = U8(m, GAME_MEM_STEADY);
	g->present = U8(m, GAME_MEM_PRESENT);
	g->newcomer = U8(m, GAME_MEM_NEWCOMER);
	g->killedWith = U8(m, GAME_MEM_KILLED_WITH);
	g->input = U8(m, GAME_MEM_INPUT);
	g->selected = U8(m, GAME_MEM_SELECTED);
	g->shipType = U8(m, GAME_MEM_SHIP_TYPE);
	g->weaponType = U8(m, GAME_MEM_WEAPON_TYPE);
	g->list = U16(m, GAME_MEM_LIST);
	g->doomed = U16(m, GAME_MEM_DOOMED);
	g->cooldown = U16(m, GAME_MEM_COOLDOWN);
	g->base = U16(m, GAME_MEM_BASE);
	g->hp = (int16_t *)AT(m, GAME_MEM_HP);
	g->sine = (const int16_t *)AT(m, GAME_MEM_SINE);
	g->owner = U32(m, GAME_MEM_OWNER);
	g->killer = U32(m, GAME_MEM_KILLER);
	g->counters = U32(m, GAME_MEM_COUNTERS);
	g->playerId = U32(m, GAME_MEM_PLAYER_ID);
	g->seed = U16(m, GAME_MEM_RSQRT_SEED);
}

/* ------------------------------------------------------------------ the grid */

/*
 * The cells (grid.ts, ReachGrid) that the square of half-size r around (x, y) touches:
 * columns x0..x1, rows y0..y1, clamped to the grid, so that a square beyond an edge still
 * covers the border cells.
 */
static void lw_game_square(const int32_t *w, int32_t x, int32_t y, int32_t r, int32_t *box)
{
	int32_t half = w[GAME_WORD_GRID_HALF], shift = w[GAME_WORD_GRID_SHIFT], last = w[GAME_WORD_GRID_SIDE] - 1, k;
	box[0] = wrap32((int64_t)x - r + half) >> shift;
	box[1] = wrap32((int64_t)x + r + half) >> shift;
	box[2] = wrap32((int64_t)y - r + half) >> shift;
	box[3] = wrap32((int64_t)y + r + half) >> shift;
	for (k = 0; k < 4; k++)
		box[k] = box[k] < 0 ? 0 : box[k] > last ? last : box[k];
}

/* `bit` into every cell of the step's layer (mask) within r of (x, y) */
static void lw_game_mark(const lw_game_mem *g, uint32_t bit, int32_t x, int32_t y, int32_t r)
{
	int32_t side = g->w[GAME_WORD_GRID_SIDE], box[4], row, c;
	lw_game_square(g->w, x, y, r, box);
	for (row = box[2] * side; box[2] <= box[3]; box[2]++, row += side)
		for (c = row + box[0]; c <= row + box[1]; c++)
			g->mask[c] = (int32_t)((uint32_t)g->mask[c] | bit);
}

/*
 * Planet (body) b's mark in the slow layer (base): its cells within planetMark of where it
 * is, after taking the last one away (`fresh`: there is none yet). One planet a step renews
 * its mark, each every markSteps steps (bodies.ts).
 */
static void lw_game_mark_planet(const lw_game_mem *g, int32_t b, int fresh)
{
	const int32_t *w = g->w;
	int32_t side = w[GAME_WORD_GRID_SIDE], r = w[GAME_WORD_PLANET_MARK], box[4], row, c, p;
	uint16_t bit = (uint16_t)(1 << (w[GAME_WORD_PLANET_BIT] + b - 1));
	if (!fresh) {
		lw_game_square(w, g->markX[b], g->markY[b], r, box);
		for (row = box[2] * side; box[2] <= box[3]; box[2]++, row += side)
			for (c = row + box[0]; c <= row + box[1]; c++)
				g->base[c] &= (uint16_t)~bit;
	}
	p = g->bodyIndex[b];
	g->markX[b] = g->x[p];
	g->markY[b] = g->y[p];
	lw_game_square(w, g->markX[b], g->markY[b], r, box);
	for (row = box[2] * side; box[2] <= box[3]; box[2]++, row += side)
		for (c = row + box[0]; c <= row + box[1]; c++)
			g->base[c] |= bit;
}

/* Every cell of the step's layer back to the slow one (grid.ts: ReachGrid's two layers) */
static void lw_game_clear(const lw_game_mem *g)
{
	int32_t cells = g->w[GAME_WORD_GRID_SIDE] * g->w[GAME_WORD_GRID_SIDE], c;
	for (c = 0; c < cells; c++)
		g->mask[c] = g->base[c];
}

/* Every live ship marks the cells within reach of it with its bit (ships.ts) */
static void lw_game_mark_ships(const lw_game_mem *g)
{
	const int32_t *w = g->w;
	int32_t n = w[GAME_WORD_MAX_PLAYERS], s;
	for (s = 0; s < n; s++) {
		int32_t i = g->focus[s];
		if (i >= 0 && g->hp[s] > 0)
			lw_game_mark(g, 1u << (w[GAME_WORD_SHIP_BIT] + s), g->x[i], g->y[i], w[GAME_WORD_REACH]);
	}
}

/* ------------------------------------------------------------------ bodies */

/*
 * The planets (bodies.ts): the angle straight from the step count (phase + steps · ω,
 * modulo a turn, in integers), so orbits never drift; sine and cosine interpolated between
 * the quarter-wave table's entries.
 */
static void lw_game_bodies(const lw_game_mem *g)
{
	const int32_t *w = g->w;
	const int16_t *sine = g->sine;
	int32_t steps = w[GAME_WORD_STEPS], frac = w[GAME_WORD_ORBIT_FRACTION], turn = w[GAME_WORD_ORBIT_TURN_MASK];
	int32_t bodies = w[GAME_WORD_BODIES], b;
	for (b = 1; b < bodies; b++) {
		int32_t i = g->bodyIndex[b], angle, q, f, lo0, hi0, lo, hi, c, s;
		g->bodyPrevX[b] = g->x[i];
		g->bodyPrevY[b] = g->y[i];
		angle = wrap32((int64_t)g->phase[b] + (wrap32((int64_t)steps * g->omega[b]) & turn)) & turn;
		/* table step (4 headings) and a 10-bit fraction of it */
		q = (angle >> (frac + 2)) & 255;
		f = (angle >> (frac - 8)) & 1023;
		lo0 = sine[q];
		hi0 = sine[256 - q];
		lo = lo0 + (((sine[q + 1] - lo0) * f) >> 10);
		hi = hi0 + (((sine[255 - q] - hi0) * f) >> 10);
		switch (angle >> (frac + 10)) {
		case 0: c = hi; s = lo; break;
		case 1: c = 0 - lo; s = hi; break;
		case 2: c = 0 - hi; s = 0 - lo; break;
		default: c = lo; s = 0 - hi; break;
		}
		g->x[i] = wrap32((int64_t)g->r32[b] * c) >> 9;
		g->y[i] = wrap32((int64_t)g->r32[b] * s) >> 9;
		g->vx[i] = 0 - (wrap32((int64_t)g->speed[b] * s) >> 14);
		g->vy[i] = wrap32((int64_t)g->speed[b] * c) >> 14;
	}
}

/* ------------------------------------------------------------------ damage */

/*
 * `amount` damage to the ship of `slot` (deaths.ts); the blow that ends it names the killer
 * and `cause` (a template id), and the JavaScript reaps it at the end of the step. A ship
 * within its guard (spawn.ts) takes none. The health clients see is a percentage, rounded
 * up, found without dividing: from an estimate below it, counted up.
 */
static void lw_game_damage(const lw_game_mem *g, int32_t slot, int32_t amount, uint32_t source, int32_t cause)
{
	const int32_t *w = g->w;
	int32_t hp = g->hp[slot], left, type, max, n, pct;
	if (hp <= 0)
		return;
	if (w[GAME_WORD_STEPS] < g->guard[slot]) {
		g->counters[LW_COUNTER_GUARDED_BLOWS]++;
		return;
	}
	left = hp - amount;
	if (left <= 0) {
		g->hp[slot] = 0;
		g->killer[slot] = source;
		g->killedWith[slot] = (uint8_t)cause;
		return;
	}
	g->hp[slot] = (int16_t)left;
	type = g->shipType[slot];
	max = w[GAME_WORD_SHIP_HP + type];
	n = left * 100;
	pct = (n * w[GAME_WORD_HP_RECIPROCAL + type]) >> 16;
	while (pct * max < n)
		pct++;
	g->health[g->focus[slot]] = (uint8_t)pct;
}

/*
 * A planet (body b) pushes ship i of `slot` out onto its surface, bounces it and damages it
 * by the closing speed (bodies.ts).
 */
static void lw_game_contact(const lw_game_mem *g, int32_t i, int32_t slot, int32_t b)
{
	const int32_t *w = g->w;
	int32_t p = g->bodyIndex[b], reach = g->radius[p] + g->radius[i], ux, uy, out, vn, back;
	int64_t dx = (int64_t)g->x[i] - g->x[p], dy = (int64_t)g->y[i] - g->y[p];
	int64_t sx = wrap32(dx) >> 7, sy = wrap32(dy) >> 7;
	if (sx * sx + sy * sy >= (int64_t)reach * reach * 64)
		return;
	lw_unit(g->seed, dx, dy, &ux, &uy, NULL);
	/* onto the surface, a hair outside it (the unit vector is never longer than 1) */
	out = reach * 32 + 1;
	g->x[i] = wrap32((int64_t)g->x[p] + (wrap32((int64_t)ux * out) >> 9));
	g->y[i] = wrap32((int64_t)g->y[p] + (wrap32((int64_t)uy * out) >> 9));
	vn = wrap32(((int64_t)g->vx[i] - g->vx[p]) * ux + ((int64_t)g->vy[i] - g->vy[p]) * uy) >> 14;
	if (vn >= 0)
		return;
	back = wrap32((int64_t)vn * w[GAME_WORD_PLANET_BOUNCE]) >> 14;
	g->vx[i] = wrap32((int64_t)g->vx[i] - (wrap32((int64_t)back * ux) >> 14));
	g->vy[i] = wrap32((int64_t)g->vy[i] - (wrap32((int64_t)back * uy) >> 14));
	g->counters[LW_COUNTER_PLANET_HITS]++;
	if (vn <= -w[GAME_WORD_GENTLE])
		lw_game_damage(g, slot, w[GAME_WORD_PLANET_DAMAGE_BASE] + (wrap32((int64_t)(0 - vn) * w[GAME_WORD_PLANET_DAMAGE]) >> 16),
			LW_NO_PLAYER, g->type[p]);
}

/* ------------------------------------------------------------------ ships */

/*
 * What ship i of `slot` touches after its step (bit 0 the sun, bit b planet b), then its
 * fire. Returns 1 when it fires and the table must add the projectile (GAME_STOP_FIRE,
 * with the projectile's type, owner and position in the words); a full pool is counted
 * here.
 */
static int lw_game_effects(const lw_game_mem *g, int32_t slot, int32_t i)
{
	int32_t *w = g->w;
	int32_t touching = w[GAME_WORD_TOUCHING], bodies = w[GAME_WORD_BODIES], b, wt, off, c, s;
	if (touching != 0) {
		/* the sun sits at the origin and kills; planets bounce */
		if (touching & 1)
			lw_game_damage(g, slot, g->hp[slot], LW_NO_PLAYER, g->type[g->bodyIndex[0]]);
		for (b = 1; b < bodies && g->hp[slot] > 0; b++)
			if (touching & (1 << b))
				lw_game_contact(g, i, slot, b);
	}
	if (g->hp[slot] <= 0 || (g->input[slot] & w[GAME_WORD_SHOOTING]) == 0 || g->cooldown[slot] != 0)
		return 0;
	wt = g->weaponType[slot];
	g->cooldown[slot] = (uint16_t)w[GAME_WORD_WEAPON_COOLDOWN + wt];
	/* firing ends the guard of a new ship (spawn.ts) */
	g->guard[slot] = 0;
	if (w[GAME_WORD_LISTED] >= w[GAME_WORD_SHOT_CAPACITY]) {
		g->counters[LW_COUNTER_SHOTS_DROPPED]++;
		return 0;
	}
	c = w[GAME_WORD_COS];
	s = w[GAME_WORD_SIN];
	off = (g->radius[i] + w[GAME_WORD_SHOT_RADIUS + wt] + 1) << w[GAME_WORD_POS_SHIFT];
	w[GAME_WORD_FIRE_TYPE] = w[GAME_WORD_SHOT_BASE] + wt;
	w[GAME_WORD_FIRE_OWNER] = (int32_t)g->owner[i];
	w[GAME_WORD_FIRE_X] = wrap32((int64_t)g->x[i] + (wrap32((int64_t)c * off) >> 14));
	w[GAME_WORD_FIRE_Y] = wrap32((int64_t)g->y[i] + (wrap32((int64_t)s * off) >> 14));
	w[GAME_WORD_SLOT] = slot;
	return 1;
}

/*
 * The projectile that the ship of `slot` fired is in the table at `added` (-1: the table was
 * full): its velocity (the ship's and the muzzle's, capped), heading, radius and life.
 */
static void lw_game_fired(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t slot = w[GAME_WORD_SLOT], ship = g->focus[slot], j = w[GAME_WORD_ADDED], wt = g->weaponType[slot];
	int32_t c = w[GAME_WORD_COS], s = w[GAME_WORD_SIN];
	int64_t vx, vy, hx, hy;
	if (j < 0) {
		g->counters[LW_COUNTER_SHOTS_DROPPED]++;
		return;
	}
	vx = (int64_t)g->vx[ship] + (wrap32((int64_t)c * w[GAME_WORD_WEAPON_VELOCITY + wt] + 8192) >> 14);
	vy = (int64_t)g->vy[ship] + (wrap32((int64_t)s * w[GAME_WORD_WEAPON_VELOCITY + wt] + 8192) >> 14);
	hx = wrap32(vx) >> 1;
	hy = wrap32(vy) >> 1;
	if (hx * hx + hy * hy > LW_SHOT_HALF2) {
		int32_t cx, cy;
		lw_clamp(g->seed, vx, vy, LW_SHOT_MAX_VELOCITY, &cx, &cy);
		vx = cx;
		vy = cy;
	}
	g->vx[j] = wrap32(vx);
	g->vy[j] = wrap32(vy);
	g->rot[j] = g->rot[ship];
	g->steady[j] = 1;
	g->radius[j] = (uint8_t)w[GAME_WORD_SHOT_RADIUS + wt];
	/* the firing step is the first of its life */
	g->expires[j] = w[GAME_WORD_STEPS] + w[GAME_WORD_WEAPON_LIFE + wt] - 1;
	g->list[w[GAME_WORD_LISTED]++] = (uint16_t)j;
	g->counters[LW_COUNTER_SHOTS_FIRED]++;
}

/* Every live ship's step from slot `next` on; stops at a ship that fires */
static int32_t lw_game_ships(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t n = w[GAME_WORD_MAX_PLAYERS], s;
	for (s = w[GAME_WORD_NEXT]; s < n; s++) {
		int32_t i = g->focus[s];
		if (i < 0 || lw_ship_in(&g->m, w, s) != SHIP_STOP_EFFECTS)
			continue;
		if (lw_game_effects(g, s, i)) {
			w[GAME_WORD_NEXT] = s + 1;
			return GAME_STOP_FIRE;
		}
	}
	return GAME_STOP_DONE;
}

/* ------------------------------------------------------------------ rams */

/*
 * Whether a body moving relative to another, from offset (d0x, d0y) to (d1x, d1y) in a
 * straight line, came closer than r (all at the same integer scale): the closest approach
 * is at t = −(d0·f)/|f|² with f = d1 − d0, clamped to [0, 1]; inside the step its squared
 * distance is (d0 × f)²/|f|², so `(d0 × f)² < r²·|f|²` decides without dividing. Both ends
 * on one side, beyond r, reject at once.
 */
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
	/* c² and r²·l stay below 2^63 for the game's sizes */
	return c * c < rr * l;
}

/*
 * Each ship against the ships of higher slots that reach into its cell (from `next`, and
 * within it from `inner` with `innerMask` left), by a swept test at 1/2 wu; stops at two
 * that touched (GAME_STOP_RAM: the bounce is worked out in doubles, ships.ts). The mask of
 * a ship's cell is read once, before any of its rams moves it.
 */
static int32_t lw_game_collide(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t n = w[GAME_WORD_MAX_PLAYERS], half = w[GAME_WORD_GRID_HALF], shift = w[GAME_WORD_GRID_SHIFT];
	int32_t side = w[GAME_WORD_GRID_SIDE], last = side - 1;
	int32_t s = w[GAME_WORD_NEXT], t = w[GAME_WORD_INNER], m = w[GAME_WORD_INNER_MASK];
	for (; s < n; s++, t = -1) {
		int32_t a = g->focus[s];
		if (t < 0) {
			int32_t cx, cy;
			if (a < 0 || g->hp[s] <= 0)
				continue;
			cx = wrap32((int64_t)g->x[a] + half) >> shift;
			cy = wrap32((int64_t)g->y[a] + half) >> shift;
			cx = cx < 0 ? 0 : cx > last ? last : cx;
			cy = cy < 0 ? 0 : cy > last ? last : cy;
			m = ((g->mask[cy * side + cx] >> w[GAME_WORD_SHIP_BIT]) & 0xff) >> (s + 1);
			t = s + 1;
		}
		for (; m != 0 && g->hp[s] > 0; t++, m >>= 1) {
			int32_t b = g->focus[t];
			if ((m & 1) == 0 || b < 0 || g->hp[t] <= 0)
				continue;
			if (!lw_sweep(wrap32((int64_t)g->prevX[t] - g->prevX[s]) >> 9, wrap32((int64_t)g->prevY[t] - g->prevY[s]) >> 9,
					wrap32((int64_t)g->x[b] - g->x[a]) >> 9, wrap32((int64_t)g->y[b] - g->y[a]) >> 9,
					(g->radius[a] + g->radius[b]) << 1))
				continue;
			w[GAME_WORD_SLOT] = s;
			w[GAME_WORD_OTHER] = t;
			w[GAME_WORD_NEXT] = s;
			w[GAME_WORD_INNER] = t + 1;
			w[GAME_WORD_INNER_MASK] = m >> 1;
			return GAME_STOP_RAM;
		}
	}
	return GAME_STOP_DONE;
}

/*
 * The bounce of `slot` and `other` is done (ships.ts): `ramDamage` is -1 when they were
 * already parting, else the damage each takes from the other (0 below a gentle closing
 * speed).
 */
static void lw_game_rammed(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t sa = w[GAME_WORD_SLOT], sb = w[GAME_WORD_OTHER], dmg = w[GAME_WORD_RAM_DAMAGE];
	int32_t a = g->focus[sa], b = g->focus[sb];
	if (dmg < 0)
		return;
	g->counters[LW_COUNTER_RAMS]++;
	w[GAME_WORD_RAMMED] = 1;
	if (dmg == 0)
		return;
	lw_game_damage(g, sa, dmg, g->owner[b], g->type[b]);
	lw_game_damage(g, sb, dmg, g->owner[a], g->type[a]);
}

#include "shots.c"

/* ------------------------------------------------------------------ the step */

/* Present players from `next` on: cooldowns, and a ship due (spawn.ts: a newcomer's as soon as it has selected) */
static int32_t lw_game_spawns(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t n = w[GAME_WORD_MAX_PLAYERS], steps = w[GAME_WORD_STEPS], s;
	for (s = w[GAME_WORD_NEXT]; s < n; s++) {
		if (g->present[s] == 0)
			continue;
		if (g->cooldown[s] > 0)
			g->cooldown[s]--;
		if (g->focus[s] < 0 && g->respawn[s] >= 0 && (steps >= g->respawn[s] || (g->newcomer[s] != 0 && g->selected[s] != 0))) {
			w[GAME_WORD_SLOT] = s;
			w[GAME_WORD_NEXT] = s + 1;
			return GAME_STOP_SPAWN;
		}
	}
	return GAME_STOP_DONE;
}

/* Where each live ship is, for the planner; returns how many died this step */
static int32_t lw_game_slots(const lw_game_mem *g)
{
	int32_t n = g->w[GAME_WORD_MAX_PLAYERS], s, dying = 0;
	for (s = 0; s < n; s++) {
		int32_t i = g->focus[s];
		if (i < 0)
			continue;
		if (g->hp[s] <= 0) {
			dying++;
			continue;
		}
		g->focusX[s] = g->x[i];
		g->focusY[s] = g->y[i];
	}
	return dying;
}

/* Dead ships from `next` on: each stops the step (the JavaScript reaps it) */
static int32_t lw_game_deaths(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t n = w[GAME_WORD_MAX_PLAYERS], s;
	for (s = w[GAME_WORD_NEXT]; s < n; s++) {
		if (g->focus[s] < 0 || g->hp[s] > 0)
			continue;
		w[GAME_WORD_SLOT] = s;
		w[GAME_WORD_NEXT] = s + 1;
		return GAME_STOP_DIE;
	}
	return GAME_STOP_DONE;
}

/*
 * game(layout, m0, m1, m2, m3, run) -> GAME_STOP_*
 *
 * GAME_RUN_STEP begins a step (the JavaScript has counted it in `steps`), GAME_RUN_RESUME
 * goes on after a stop, GAME_RUN_PLACE puts the planets where step `steps` has them and marks
 * the grid (start-up). The order is the step's (game.ts): planets, spawns, ships (each with
 * what it touches and its fire), ships against ships (and the grid marked again after a ram),
 * projectiles, then the doomed projectiles and dead ships leave. Where each live ship is
 * (focusX, focusY) is noted before the table loses anything: a removal changes no
 * position, so the step ends as it did, with one call fewer. After GAME_STOP_REAP the step
 * goes on only if `dying` ships died.
 */
/*
 * spawnClearance (spawn.ts): how far (wu) the point (clearX, clearY) is from being a fair
 * spawn point: the worst shortfall, negative, or LW_WIDE_OPEN when nothing is in the way.
 * Each live entity below the table's end asks its clearance, by its template
 * (spawnWant, plus its radius where spawnRadius says so); squared distances first, the
 * length (lw_unit's, geometryUnit's) only for what is too close.
 */
static int32_t lw_game_clearance(const lw_game_mem *g)
{
	const int32_t *w = g->w;
	const uint8_t *alive = U8(&g->m, GAME_MEM_ALIVE);
	int32_t x = w[GAME_WORD_CLEAR_X], y = w[GAME_WORD_CLEAR_Y], end = w[GAME_WORD_END];
	int32_t shift = w[GAME_WORD_POS_SHIFT], reach = w[GAME_WORD_SPAWN_REACH];
	int32_t worst = LW_WIDE_OPEN, i;
	for (i = 0; i < end; i++) {
		int32_t dx, dy, t, want, ux, uy, len;
		if (alive[i] == 0)
			continue;
		dx = wrap32((int64_t)g->x[i] - x) >> shift;
		if (dx >= reach || dx <= -reach)
			continue;
		t = g->type[i];
		want = w[GAME_WORD_SPAWN_WANT + t] + (w[GAME_WORD_SPAWN_RADIUS + t] != 0 ? g->radius[i] : 0);
		dy = wrap32((int64_t)g->y[i] - y) >> shift;
		if ((int64_t)dx * dx + (int64_t)dy * dy >= (int64_t)want * want)
			continue;
		lw_unit(g->seed, dx, dy, &ux, &uy, &len);
		if (len - want < worst)
			worst = len - want;
	}
	return worst;
}

static int32_t lw_game(const lw_mem *mp, int32_t run)
{
	lw_game_mem g;
	int32_t *w, r, b, bodies;
	lw_game_bind(&g, mp);
	w = g.w;
	bodies = w[GAME_WORD_BODIES];
	if (run == GAME_RUN_CLEAR)
		return lw_game_clearance(&g);
	if (run == GAME_RUN_PLACE) {
		lw_game_bodies(&g);
		for (b = 1; b < bodies; b++)
			lw_game_mark_planet(&g, b, 1);
		return GAME_STOP_DONE;
	}
	if (run == GAME_RUN_STEP) {
		int32_t steps = w[GAME_WORD_STEPS];
		g.counters[LW_COUNTER_STEPS]++;
		/* this step's rounding offset: the fractional part of steps × the golden ratio, 31 bits, never negative */
		w[GAME_WORD_DITHER] = wrap32((int64_t)steps * w[GAME_WORD_DITHER_STEP]) & 0x7fffffff;
		lw_game_bodies(&g);
		b = 1 + (steps & (w[GAME_WORD_MARK_STEPS] - 1));
		if (b < bodies)
			lw_game_mark_planet(&g, b, 0);
		w[GAME_WORD_PHASE] = LW_PHASE_SPAWNS;
		w[GAME_WORD_NEXT] = 0;
	}
	for (;;) {
		switch (w[GAME_WORD_PHASE]) {
		case LW_PHASE_SPAWNS:
			r = lw_game_spawns(&g);
			if (r != GAME_STOP_DONE)
				return r;
			w[GAME_WORD_DOOMED] = 0;
			lw_game_clear(&g);
			w[GAME_WORD_PHASE] = LW_PHASE_SHIPS;
			w[GAME_WORD_NEXT] = 0;
			break;
		case LW_PHASE_SHIPS:
			r = lw_game_ships(&g);
			if (r != GAME_STOP_DONE) {
				w[GAME_WORD_PHASE] = LW_PHASE_FIRED;
				return r;
			}
			lw_game_mark_ships(&g);
			w[GAME_WORD_PHASE] = LW_PHASE_COLLIDE;
			w[GAME_WORD_NEXT] = 0;
			w[GAME_WORD_INNER] = -1;
			w[GAME_WORD_RAMMED] = 0;
			break;
		case LW_PHASE_FIRED:
			lw_game_fired(&g);
			w[GAME_WORD_PHASE] = LW_PHASE_SHIPS;
			break;
		case LW_PHASE_COLLIDE:
			r = lw_game_collide(&g);
			if (r != GAME_STOP_DONE) {
				w[GAME_WORD_PHASE] = LW_PHASE_RAMMED;
				return r;
			}
			/* a bounce moved ships: their marks again */
			if (w[GAME_WORD_RAMMED]) {
				lw_game_clear(&g);
				lw_game_mark_ships(&g);
			}
			lw_game_shots(&g);
			w[GAME_WORD_SHOTS] = w[GAME_WORD_LISTED];
			w[GAME_WORD_DYING] = lw_game_slots(&g);
			w[GAME_WORD_PHASE] = w[GAME_WORD_DYING] > 0 ? LW_PHASE_DEATHS : LW_PHASE_IDLE;
			w[GAME_WORD_NEXT] = 0;
			if (w[GAME_WORD_DOOMED] > 0)
				return GAME_STOP_REAP;
			break;
		case LW_PHASE_RAMMED:
			lw_game_rammed(&g);
			w[GAME_WORD_PHASE] = LW_PHASE_COLLIDE;
			break;
		case LW_PHASE_DEATHS:
			r = lw_game_deaths(&g);
			if (r != GAME_STOP_DONE)
				return r;
			w[GAME_WORD_PHASE] = LW_PHASE_IDLE;
			return GAME_STOP_DONE;
		default:
			/* the step is done (or none begun) */
			return GAME_STOP_DONE;
		}
	}
}
