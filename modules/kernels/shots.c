/*
 * The projectiles' flight, part of the game's step (game.c, which includes this file after
 * the step's memory, damage and swept test it uses; shots.ts describes the rules).
 */

/* Projectile i hit the ship of slot s: the ship takes the weapon's damage */
static void lw_game_hit(const lw_game_mem *g, int32_t i, int32_t s)
{
	const int32_t *w = g->w;
	g->counters[LW_COUNTER_SHOT_HITS]++;
	lw_game_damage(g, s, w[GAME_WORD_WEAPON_DAMAGE + g->type[i] - w[GAME_WORD_SHOT_BASE]], g->owner[i], g->type[i]);
}

/*
 * Every projectile in the list, in its order: one whose time is up is doomed; the others
 * move; one whose grid cell holds something is tested against the sun and the arena's edge,
 * the planets and the ships, in that order, and doomed by the first it meets (a ship takes
 * its damage); the rest get twice the sun's pull every other step (by index parity), and
 * the speed cap when the pull takes them over it. A doomed projectile goes to the doomed
 * list and the last one of the list takes its place. A cell outside the grid holds nothing
 * (as it did for the JavaScript this replaced: an array read out of range was undefined
 * there, and tested as nothing).
 */
static void lw_game_shots(const lw_game_mem *g)
{
	int32_t *w = g->w;
	int32_t *ex = g->x, *ey = g->y, *evx = g->vx, *evy = g->vy;
	const uint32_t *owner = g->owner;
	const uint8_t *type = g->type, *radius = g->radius;
	uint16_t *list = g->list, *doomed = g->doomed;
	const int32_t *expires = g->expires, *focusIndex = g->focus, *bodyIndex = g->bodyIndex;
	const int16_t *hp = g->hp;
	const int32_t *prevX = g->prevX, *prevY = g->prevY, *bodyPrevX = g->bodyPrevX, *bodyPrevY = g->bodyPrevY;
	const int32_t *mask = g->mask;
	int32_t gridHalf = w[GAME_WORD_GRID_HALF], gridShift = w[GAME_WORD_GRID_SHIFT], side = w[GAME_WORD_GRID_SIDE];
	int64_t cells = (int64_t)side * side;
	int32_t floor = 1 << w[GAME_WORD_OCT_MIN];
	int32_t tmask = w[GAME_WORD_T_MASK], dshift = w[GAME_WORD_D_SHIFT], sshift = w[GAME_WORD_S_SHIFT];
	int32_t zones = w[GAME_WORD_ZONES], planetBit = w[GAME_WORD_PLANET_BIT], shipBit = w[GAME_WORD_SHIP_BIT], planetBits = w[GAME_WORD_PLANET_BITS];
	int32_t sunRadius = w[GAME_WORD_SUN_RADIUS], arenaR2 = w[GAME_WORD_ARENA_R2], planetNear = w[GAME_WORD_PLANET_NEAR], reach = w[GAME_WORD_REACH];
	int32_t armSteps = w[GAME_WORD_ARM_STEPS], shotBase = w[GAME_WORD_SHOT_BASE];
	int32_t steps = w[GAME_WORD_STEPS], parity = steps & 1, dither = w[GAME_WORD_DITHER];
	int32_t n = w[GAME_WORD_LISTED], dc = w[GAME_WORD_DOOMED], k;
	for (k = 0; k < n; k++) {
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
			/* what the cell holds, with x and y as the table holds them */
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
				if (owner[i] == g->playerId[b] && steps - expires[i] + w[GAME_WORD_WEAPON_LIFE + type[i] - shotBase] < armSteps)
					continue;
				r = (radius[o] + radius[i]) << 1;
				if (lw_sweep(wrap32((int64_t)px - vx0 - prevX[b]) >> 9, wrap32((int64_t)py - vy0 - prevY[b]) >> 9,
						(int32_t)dx >> 9, (int32_t)dy >> 9, r)) {
					lw_game_hit(g, i, b);
					gone = 1;
				}
			}
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
			int32_t g0, t, sh, d;
			int64_t vx, vy;
			/* far out, u passes 2^31: the table is read at ToInt32(u), as the JavaScript did */
			t = lw_gravity(g->gravity, wrap32(u64), floor, tmask, dshift, &g0);
			sh = (g0 >> sshift) - 1;
			d = dither >> (31 - sh);
			vx = (int64_t)vx0 + (wrap32((int64_t)d - (int64_t)xs * t) >> sh);
			vy = (int64_t)vy0 + (wrap32((int64_t)d - (int64_t)ys * t) >> sh);
			/*
			 * Over 2^31 squared (past 46340 a component alone is), the exact test at half
			 * scale, and the speed cap: rare.
			 */
			if (vx > 46340 || vx < -46340 || vy > 46340 || vy < -46340 || vx * vx + vy * vy > 0x7fffffff) {
				int64_t hx = wrap32(vx) >> 1, hy = wrap32(vy) >> 1;
				if (hx * hx + hy * hy > LW_SHOT_HALF2) {
					int32_t cx, cy;
					lw_clamp(g->seed, vx, vy, LW_SHOT_MAX_VELOCITY, &cx, &cy);
					vx = cx;
					vy = cy;
				}
			}
			evx[i] = wrap32(vx);
			evy[i] = wrap32(vy);
		}
	}
	w[GAME_WORD_LISTED] = n;
	w[GAME_WORD_DOOMED] = dc;
}
