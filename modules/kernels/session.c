/*
 * The session's name store (modules/server/session.ts), in C and nowhere else: a player's
 * new name goes into its row of `names` (NAME_LENGTH bytes each, NUL-padded), made unique
 * among the players of a mask with a "-N" suffix, letters compared without their case. On
 * XS each byte a loop reads in JavaScript is a host call; default names ("Player 1", ...)
 * share all but their last letter, so a rename compared them letter by letter for every
 * player. The glue files include this after loops.c (lw_mem, the layout).
 */

static inline uint8_t lw_fold(uint8_t c)
{
	return c >= 0x41 && c <= 0x5a ? (uint8_t)(c | 0x20) : c;
}

/* Whether another player of `mask` has the name of `slot`, case aside */
static int32_t lw_name_taken(const uint8_t *names, const uint8_t *length, int32_t players, int32_t slot, int32_t mask)
{
	const uint8_t *a = names + slot * LW_NAME_LENGTH;
	int32_t len = length[slot], s, i;
	for (s = 0; s < players; s++) {
		const uint8_t *b = names + s * LW_NAME_LENGTH;
		if (s == slot || ((mask >> s) & 1) == 0 || length[s] != len) continue;
		for (i = 0; i < len && lw_fold(a[i]) == lw_fold(b[i]); i++) {
		}
		if (i == len) return 1;
	}
	return 0;
}

/*
 * The name of `length` bytes at `from` in the arena becomes the name of `slot`, with the
 * first free suffix "-2", "-3", ... when a player of `mask` has it already (cut short to fit
 * NAME_LENGTH with its NUL). Returns its length.
 */
static int32_t lw_name(lw_mem *m, int32_t slot, int32_t from, int32_t length, int32_t mask)
{
	const int32_t *w = m->words + 2 * NAME_MEMS;
	uint8_t *names = U8(m, NAME_MEM_NAMES);
	uint8_t *lengths = U8(m, NAME_MEM_NAME_LENGTH);
	const uint8_t *src = U8(m, NAME_MEM_ARENA) + from;
	uint8_t *row = names + slot * LW_NAME_LENGTH;
	int32_t players = w[NAME_WORD_PLAYERS], len = length, suffix, n;
	if (src != row) __builtin_memmove(row, src, (size_t)length);
	lengths[slot] = (uint8_t)len;
	for (suffix = 2; lw_name_taken(names, lengths, players, slot, mask); suffix++) {
		int32_t digits = suffix < 10 ? 1 : 2;
		len = length + 1 + digits <= LW_NAME_LENGTH - 1 ? length : LW_NAME_LENGTH - 2 - digits;
		if (src != row) __builtin_memmove(row, src, (size_t)len);
		row[len] = 0x2d; /* '-' */
		if (digits == 2) row[len + 1] = (uint8_t)(0x30 + suffix / 10);
		row[len + digits] = (uint8_t)(0x30 + suffix % 10);
		lengths[slot] = (uint8_t)(len + 1 + digits);
	}
	n = lengths[slot];
	__builtin_memset(row + n, 0, (size_t)(LW_NAME_LENGTH - n));
	return n;
}
