/*
 * The transport's delivery state and its every change, in C and nowhere else: the reliable
 * queue of each peer (queue, copy, commit, cut by an ack), the receive cursor and the
 * timestamp filter, the round-trip time, when a packet is due, and the packet's header and
 * reliable part (fill). modules/transport/endpoint.ts is its face: one Endpoint per peer,
 * each call one native call with the peer's index; modules/transport/receive.ts runs the
 * receive step on it. The glue files include this after loops.c (lw_mem, the layout).
 *
 * One binding serves all the peers of an owner (the server's players, a client's server):
 * their state words (EP_*, EP_STRIDE apart) in `state`, their queues `queueBytes` apart in
 * `queues`, the buffer packets go into and broadcasts are copied from (`out`), the
 * statistics sink (`counters`). Each queued message is `seqno u32, type u8, payload`,
 * packed from byte 0, and a message's size comes from its bytes: the size table, or for a
 * text its NUL. Packets always carry messages from the front, so the messages sent at
 * least once are a prefix of the queue (sentCount of them, sentBytes bytes). The round
 * trip is timed on one message at a time (the probe); a resend of it voids the sample
 * (Karn's rule).
 *
 * Times are int32 milliseconds and compared by their difference, as `Time.delta` does;
 * seqnos are uint32 and compared the same way.
 */
static inline uint32_t lw_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void lw_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* b - a as JavaScript's (b - a) | 0 on two uint32 or int32 values */
static inline int32_t lw_diff(int32_t b, int32_t a)
{
	return (int32_t)((uint32_t)b - (uint32_t)a);
}

typedef struct {
	int32_t *w;   /* the binding's scalar words */
	int32_t *s;   /* this peer's state words */
	uint8_t *q;   /* this peer's queue */
	uint8_t *out; /* the packet buffer */
	uint32_t *counters;
	int32_t *front; /* when each peer's queue front began to wait */
} lw_ep;

static inline void lw_ep_at(lw_mem *m, int32_t i, lw_ep *e)
{
	e->w = m->words + 2 * TRANSPORT_MEMS;
	e->s = I32(m, TRANSPORT_MEM_STATE) + i * EP_STRIDE;
	e->q = U8(m, TRANSPORT_MEM_QUEUES) + (size_t)i * (uint32_t)e->w[TRANSPORT_WORD_QUEUE_BYTES];
	e->out = U8(m, TRANSPORT_MEM_OUT);
	e->counters = U32(m, TRANSPORT_MEM_COUNTERS);
	e->front = I32(m, TRANSPORT_MEM_FRONT);
}

static inline double lw_srtt(const int32_t *s)
{
	double d;
	__builtin_memcpy(&d, s + EP_SRTT, sizeof d);
	return d;
}

static inline void lw_set_srtt(int32_t *s, double d)
{
	__builtin_memcpy(s + EP_SRTT, &d, sizeof d);
}

/* The payload size of `type` from the table: -1 for a text, -2 for a type it does not have */
static inline int32_t lw_fixed(const int32_t *w, int32_t type)
{
	int32_t row = type - w[TRANSPORT_WORD_TYPE_BASE];
	if (row < 0 || row >= w[TRANSPORT_WORD_TYPES]) return -2;
	return w[TRANSPORT_WORD_SIZES + row];
}

/*
 * Size of the queued message at `o`, header included: the table's, or a text's to its NUL.
 * A text without a NUL in its reach measures past the queue's end, which no queue of
 * well-formed messages adds up to (fill finds it out).
 */
static int32_t lw_queued(const lw_ep *e, int32_t o)
{
	int32_t fixed = lw_fixed(e->w, e->q[o + 4]);
	if (fixed >= 0) return LW_RELIABLE_HEADER + fixed;
	{
		int32_t p = o + LW_RELIABLE_HEADER + e->w[TRANSPORT_WORD_TEXT_PREFIX];
		int32_t end = p + e->w[TRANSPORT_WORD_TEXT_MAX];
		int32_t i = p;
		if (end > e->w[TRANSPORT_WORD_QUEUE_BYTES]) end = e->w[TRANSPORT_WORD_QUEUE_BYTES];
		while (i < end && e->q[i] != 0) i++;
		return (i < end ? i + 1 : e->w[TRANSPORT_WORD_QUEUE_BYTES] + 1) - o;
	}
}

static inline void lw_count(const lw_ep *e, int32_t word, int32_t n)
{
	int32_t at = e->w[word];
	if (at >= 0) e->counters[at] += (uint32_t)n;
}

static void lw_receive_reset(int32_t *s, int32_t peer)
{
	s[EP_LAST_PROCESSED] = (int32_t)((uint32_t)peer - 1u);
	s[EP_NEWEST_TIMESTAMP] = 0;
	s[EP_HAS_TIMESTAMP] = 0;
	s[EP_ACK_DUE] = 0;
}

static void lw_reset(int32_t *s, int32_t now, int32_t initial, int32_t peer)
{
	s[EP_USED_BYTES] = 0;
	s[EP_COUNT] = 0;
	s[EP_SENT_COUNT] = 0;
	s[EP_SENT_BYTES] = 0;
	s[EP_FIRST_SEQ] = initial;
	s[EP_NEXT_SEQ] = initial;
	s[EP_UNMEASURED] = 0;
	lw_receive_reset(s, peer);
	lw_set_srtt(s, 0);
	s[EP_PROBING] = 0;
	s[EP_LAST_RELIABLE_SEND] = now;
	s[EP_LAST_HEARD] = now;
	s[EP_SENT] = 0;
	s[EP_RESENT] = 0;
}

/* Error codes: -2 - TRANSPORT_STOP_* (-1 is a full queue) */
#define LW_FAIL(code) (-2 - (code))

static int32_t lw_queue(const lw_ep *e, int32_t type, int32_t payload)
{
	int32_t *s = e->s;
	int32_t fixed, o;
	if (payload < 0 || LW_RELIABLE_HEADER + payload > e->w[TRANSPORT_WORD_MAX_PACKET] - LW_HEADER_SIZE) return LW_FAIL(TRANSPORT_STOP_TOO_BIG);
	fixed = lw_fixed(e->w, type);
	if (fixed == -2 || (fixed >= 0 && fixed != payload)) return LW_FAIL(TRANSPORT_STOP_BAD_TYPE);
	o = s[EP_USED_BYTES];
	if (o + LW_RELIABLE_HEADER + payload > e->w[TRANSPORT_WORD_QUEUE_BYTES]) return -1;
	lw_put32(e->q + o, (uint32_t)s[EP_NEXT_SEQ]);
	e->q[o + 4] = (uint8_t)type;
	if (fixed < 0) s[EP_UNMEASURED] = 1;
	s[EP_COUNT]++;
	s[EP_USED_BYTES] = o + LW_RELIABLE_HEADER + payload;
	s[EP_NEXT_SEQ] = (int32_t)((uint32_t)s[EP_NEXT_SEQ] + 1u);
	return o + LW_RELIABLE_HEADER;
}

/* The type byte and payload at `from` in `out`, `bytes` in all, appended if `reserve` bytes stay free after it */
static int32_t lw_queue_copy(const lw_ep *e, int32_t from, int32_t bytes, int32_t reserve)
{
	int32_t *s = e->s;
	int32_t o = s[EP_USED_BYTES];
	int32_t end = o + LW_RELIABLE_HEADER - 1 + bytes;
	if (end + reserve > e->w[TRANSPORT_WORD_QUEUE_BYTES]) return 0;
	lw_put32(e->q + o, (uint32_t)s[EP_NEXT_SEQ]);
	__builtin_memmove(e->q + o + LW_RELIABLE_HEADER - 1, e->out + from, (size_t)bytes);
	s[EP_COUNT]++;
	s[EP_USED_BYTES] = end;
	s[EP_NEXT_SEQ] = (int32_t)((uint32_t)s[EP_NEXT_SEQ] + 1u);
	return 1;
}

static int32_t lw_ep_commit(const lw_ep *e, int32_t end, int32_t messages)
{
	int32_t *s = e->s;
	int32_t used = s[EP_USED_BYTES];
	uint32_t next = (uint32_t)s[EP_NEXT_SEQ];
	if (!(end <= e->w[TRANSPORT_WORD_QUEUE_BYTES] &&
			(messages == 0 ? end == used : messages > 0 && end - used >= messages * LW_RELIABLE_HEADER)))
		return LW_FAIL(TRANSPORT_STOP_BAD_SPAN);
	if (messages != 0 && lw_be32(e->q + used) != next) return LW_FAIL(TRANSPORT_STOP_BAD_SEQ);
	if (messages == 1) {
		int32_t fixed = lw_fixed(e->w, e->q[used + 4]);
		if (fixed == -2 || (fixed >= 0 && end - used != LW_RELIABLE_HEADER + fixed)) return LW_FAIL(TRANSPORT_STOP_BAD_COMMIT);
	}
	s[EP_USED_BYTES] = end;
	s[EP_COUNT] += messages;
	s[EP_NEXT_SEQ] = (int32_t)(next + (uint32_t)messages);
	return 0;
}

/* An ack from the peer: 1, or 0 for an ack of a seqno never sent */
static int32_t lw_acknowledge(const lw_ep *e, int32_t ack, int32_t now)
{
	int32_t *s = e->s;
	int64_t n = (int64_t)lw_diff(ack, s[EP_FIRST_SEQ]) + 1;
	int32_t bytes = 0;
	if (n <= 0) return 1; /* old or initial ack */
	if (n > s[EP_SENT_COUNT]) return 0;
	if (s[EP_PROBING] && lw_diff(s[EP_PROBE_SEQ], s[EP_FIRST_SEQ]) < n) {
		/* The RTT sample, smoothed (1/8 of each new one) from the first, which stands alone */
		double rtt = (double)(uint32_t)((uint32_t)now - (uint32_t)s[EP_PROBE_SENT]);
		double srtt = lw_srtt(s);
		s[EP_PROBING] = 0;
		lw_set_srtt(s, srtt == 0 ? (rtt > 0 ? rtt : 0.5) : srtt + (rtt - srtt) / 8);
	}
	if (n == s[EP_SENT_COUNT]) bytes = s[EP_SENT_BYTES]; /* every message sent is acknowledged: no walk */
	else {
		int32_t k;
		for (k = 0; k < n; k++) bytes += lw_queued(e, bytes);
	}
	__builtin_memmove(e->q, e->q + bytes, (size_t)(s[EP_USED_BYTES] - bytes));
	s[EP_USED_BYTES] -= bytes;
	s[EP_COUNT] -= (int32_t)n;
	s[EP_SENT_COUNT] -= (int32_t)n;
	s[EP_SENT_BYTES] -= bytes;
	s[EP_FIRST_SEQ] = (int32_t)((uint32_t)s[EP_FIRST_SEQ] + (uint32_t)n);
	return 1;
}

static int32_t lw_accept_reliable(int32_t *s, int32_t seq)
{
	int32_t last = s[EP_LAST_PROCESSED];
	if ((uint32_t)seq == (uint32_t)last + 1u) {
		s[EP_LAST_PROCESSED] = seq;
		s[EP_ACK_DUE] = 1;
		return LW_PROCESS;
	}
	return lw_diff(seq, last) > 0 ? LW_OUT_OF_ORDER : LW_DUPLICATE;
}

/*
 * Whether unreliable messages stamped `timestamp` are current (and it becomes the newest),
 * stale, or from the future: further ahead of the newest than our clock moved since, plus
 * the slack
 */
static int32_t lw_accept_unreliable(int32_t *s, int32_t timestamp, int32_t now)
{
	if (s[EP_HAS_TIMESTAMP]) {
		int32_t ahead = lw_diff(timestamp, s[EP_NEWEST_TIMESTAMP]);
		int32_t elapsed = lw_diff(now, s[EP_NEWEST_AT]);
		if (ahead < 0) return LW_STALE;
		if ((int64_t)ahead > (int64_t)elapsed + LW_FUTURE_SLACK_MS + (elapsed >> 6)) return LW_FUTURE;
	}
	s[EP_NEWEST_TIMESTAMP] = timestamp;
	s[EP_NEWEST_AT] = now;
	s[EP_HAS_TIMESTAMP] = 1;
	return LW_CURRENT;
}

/*
 * The receive step's own part of a validated datagram (modules/transport/receive.ts): the
 * header's ack (a new front of the queue stamped in `front`), the peer heard, and for a
 * datagram of one unreliable message its stamp.
 * Returns RECEIVE_* bits; with the stamp not current, its verdict (STALE, FUTURE) << 4.
 */
static int32_t lw_receive(const lw_ep *e, int32_t i, int32_t ack, int32_t timestamp, int32_t now, int32_t shape)
{
	int32_t *s = e->s;
	int32_t result = 0, verdict;
	if (lw_diff(ack, s[EP_FIRST_SEQ]) >= 0) {
		if (!lw_acknowledge(e, ack, now)) return LW_RECEIVE_BAD_ACK;
		/* A new front of the queue starts its wait now */
		e->front[i] = now;
		result = LW_RECEIVE_NEW_ACK;
	}
	s[EP_LAST_HEARD] = now;
	if (shape != LW_SHAPE_ONE_UNRELIABLE) return result;
	verdict = lw_accept_unreliable(s, timestamp, now);
	return verdict == LW_CURRENT ? result | LW_RECEIVE_CURRENT : result | (verdict << 4);
}

static int32_t lw_wants_send(const lw_ep *e, int32_t now, int32_t resend)
{
	const int32_t *s = e->s;
	if (s[EP_COUNT] == 0) return 0;
	if (s[EP_COUNT] > s[EP_SENT_COUNT] &&
			s[EP_SENT_BYTES] + lw_queued(e, s[EP_SENT_BYTES]) <= e->w[TRANSPORT_WORD_MAX_PACKET] - LW_HEADER_SIZE)
		return 1;
	return lw_diff(now, s[EP_LAST_RELIABLE_SEND]) >= resend;
}

static int32_t lw_owed(const lw_ep *e, int32_t now)
{
	const int32_t *s = e->s;
	return s[EP_ACK_DUE] || (s[EP_SENT_COUNT] != 0 && lw_diff(now, s[EP_LAST_RELIABLE_SEND]) >= e->w[TRANSPORT_WORD_RESEND_MS]);
}

static int32_t lw_due(const lw_ep *e, int32_t now)
{
	const int32_t *s = e->s;
	int32_t o;
	if (s[EP_ACK_DUE]) return 1;
	if (s[EP_COUNT] == 0) return 0;
	if (lw_diff(now, s[EP_LAST_RELIABLE_SEND]) >= e->w[TRANSPORT_WORD_RESEND_MS]) return 1;
	if (!(s[EP_COUNT] > s[EP_SENT_COUNT])) return 0;
	/* The first message never sent: does it fit a packet after those sent? */
	o = s[EP_SENT_BYTES];
	return o + lw_queued(e, o) <= e->w[TRANSPORT_WORD_MAX_PACKET] - LW_HEADER_SIZE;
}

/*
 * A packet at `base` in `out`: the header with our ack and `timestamp`, then every queued
 * message that fits, oldest first, from message `first` on. Returns the offset after them
 * in the packet, or LW_FAIL(unmeasured) when the messages queued since the last fill do not
 * end where the queue does.
 */
static int32_t lw_fill(const lw_ep *e, int32_t base, int32_t now, int32_t timestamp, int32_t first)
{
	int32_t *s = e->s;
	const int32_t *w = e->w;
	uint8_t *out = e->out + base;
	int32_t count = s[EP_COUNT], sent_count = s[EP_SENT_COUNT], used = s[EP_USED_BYTES];
	int32_t max = w[TRANSPORT_WORD_MAX_PACKET], start = LW_HEADER_SIZE;
	int32_t from, begin, i, n, probing;
	lw_put32(out + LW_HEADER_APP_ID, (uint32_t)w[TRANSPORT_WORD_APP_ID]);
	lw_put32(out + LW_HEADER_ACK, (uint32_t)s[EP_LAST_PROCESSED]);
	lw_put32(out + LW_HEADER_TIMESTAMP, (uint32_t)timestamp);
	out[LW_HEADER_REL + 1] = 0;
	s[EP_ACK_DUE] = 0;
	if (count == 0) {
		out[LW_HEADER_REL] = 0;
		s[EP_FILLED_MESSAGES] = 0;
		return LW_HEADER_SIZE;
	}
	if (first == 0 && start + used <= max) {
		/* The whole queue fits (the usual case): nothing to measure, unless a text went in since the last fill */
		if (s[EP_UNMEASURED]) {
			if (count > sent_count) {
				int32_t at = s[EP_SENT_BYTES], k;
				for (k = sent_count; k < count; k++) at += lw_queued(e, at);
				if (at != used) return LW_FAIL(TRANSPORT_STOP_UNMEASURED);
			}
			s[EP_UNMEASURED] = 0;
		}
		begin = 0;
		from = used;
		i = count;
	} else {
		/* The run of messages that fits */
		int32_t k, o = start;
		from = 0;
		for (k = 0; k < first; k++) from += lw_queued(e, from);
		begin = from;
		for (i = first; i < count; i++) {
			int32_t len = lw_queued(e, from);
			if (o + len > max) break;
			from += len;
			o += len;
		}
	}
	if (from != begin) __builtin_memcpy(out + start, e->q + begin, (size_t)(from - begin));
	/* Messages first .. i-1 went out: those below sentCount again, the rest for the first time */
	probing = s[EP_PROBING];
	if (sent_count > first) {
		int32_t resent_end = i < sent_count ? i : sent_count;
		if (resent_end > first) {
			s[EP_RESENT] += resent_end - first;
			lw_count(e, TRANSPORT_WORD_RESENT_INDEX, resent_end - first);
			/* Karn: a resent probe's ack could answer either copy */
			if (probing) {
				int32_t probe = lw_diff(s[EP_PROBE_SEQ], s[EP_FIRST_SEQ]);
				if (probe >= first && probe < resent_end) s[EP_PROBING] = probing = 0;
			}
		}
	}
	if (i > sent_count) {
		int32_t first_new = sent_count > first ? sent_count : first;
		s[EP_SENT] += i - first_new;
		lw_count(e, TRANSPORT_WORD_SENT_INDEX, i - first_new);
		if (!probing) {
			s[EP_PROBING] = 1;
			s[EP_PROBE_SEQ] = (int32_t)((uint32_t)s[EP_FIRST_SEQ] + (uint32_t)first_new);
			s[EP_PROBE_SENT] = now;
		}
		s[EP_SENT_COUNT] = i;
		s[EP_SENT_BYTES] = from;
	}
	n = i - first;
	if (n > 0) s[EP_LAST_RELIABLE_SEND] = now;
	out[LW_HEADER_REL] = (uint8_t)n;
	s[EP_FILLED_MESSAGES] = n;
	return start + from - begin;
}

/* The messages the last fill put in its packet went out once more */
static void lw_repeat(const lw_ep *e)
{
	int32_t *s = e->s;
	int32_t n = s[EP_FILLED_MESSAGES];
	if (n == 0) return;
	s[EP_RESENT] += n;
	lw_count(e, TRANSPORT_WORD_RESENT_INDEX, n);
	if (s[EP_PROBING] && lw_diff(s[EP_PROBE_SEQ], s[EP_FIRST_SEQ]) < n) s[EP_PROBING] = 0;
}

/* Smoothed RTT as an integer in 0..65535, rounded as Math.round does */
static int32_t lw_ping(const int32_t *s)
{
	double srtt = lw_srtt(s);
	double f = __builtin_floor(srtt);
	double p = srtt - f >= 0.5 ? f + 1 : f;
	return p > 65535 ? 65535 : (int32_t)p;
}

/*
 * One call: `run` is what it does (TRANSPORT_RUN_*), `i` the peer (or, for broadcast and
 * dueMask, a bit mask of peers), a..d its arguments.
 */
static int32_t lw_transport(lw_mem *m, int32_t run, int32_t i, int32_t a, int32_t b, int32_t c, int32_t d)
{
	lw_ep e;
	if (run == TRANSPORT_RUN_BROADCAST || run == TRANSPORT_RUN_DUE_MASK) {
		/*
		 * Over the peers in the mask i: broadcast returns those that took the copy, and those
		 * whose queue was empty << 16 (their front stamped with the time d); dueMask, those
		 * due, and those owed << 16
		 */
		int32_t result = 0, k, n = m->words[2 * TRANSPORT_MEMS + TRANSPORT_WORD_ENDPOINTS];
		for (k = 0; k < n && (i >> k) != 0; k++) {
			if (((i >> k) & 1) == 0) continue;
			lw_ep_at(m, k, &e);
			if (run == TRANSPORT_RUN_BROADCAST) {
				int32_t empty = e.s[EP_COUNT] == 0;
				if (lw_queue_copy(&e, a, b, c)) {
					result |= (1 << k) | (empty << (16 + k));
					if (empty) e.front[k] = d;
				}
			} else if (lw_due(&e, a)) result |= (1 << k) | (lw_owed(&e, a) << (16 + k));
		}
		return result;
	}
	lw_ep_at(m, i, &e);
	switch (run) {
	case TRANSPORT_RUN_RESET:
		lw_reset(e.s, a, b, c);
		return 0;
	case TRANSPORT_RUN_RECEIVE_RESET:
		lw_receive_reset(e.s, a);
		return 0;
	case TRANSPORT_RUN_QUEUE:
		return lw_queue(&e, a, b);
	case TRANSPORT_RUN_QUEUE_COPY:
		return lw_queue_copy(&e, a, b, c);
	case TRANSPORT_RUN_COMMIT:
		return lw_ep_commit(&e, a, b);
	case TRANSPORT_RUN_ACKNOWLEDGE:
		return lw_acknowledge(&e, a, b);
	case TRANSPORT_RUN_RECEIVE:
		return lw_receive(&e, i, a, b, c, d);
	case TRANSPORT_RUN_RECEIVE_AT:
		/* The datagram at `a` in `out`: its header's ack and timestamp read here */
		return lw_receive(&e, i, (int32_t)lw_be32(e.out + a + LW_HEADER_ACK), (int32_t)lw_be32(e.out + a + LW_HEADER_TIMESTAMP), b, c);
	case TRANSPORT_RUN_ACCEPT_RELIABLE:
		return lw_accept_reliable(e.s, a);
	case TRANSPORT_RUN_ACCEPT_UNRELIABLE:
		return lw_accept_unreliable(e.s, a, b);
	case TRANSPORT_RUN_WANTS_SEND:
		return lw_wants_send(&e, a, b);
	case TRANSPORT_RUN_OWED:
		return lw_owed(&e, a);
	case TRANSPORT_RUN_DUE:
		return lw_due(&e, a);
	case TRANSPORT_RUN_FILL:
		return lw_fill(&e, a, b, c, d);
	case TRANSPORT_RUN_REPEAT:
		lw_repeat(&e);
		return 0;
	case TRANSPORT_RUN_PING:
		return lw_ping(e.s);
	}
	return 0;
}
