#include "agent_stats.h"

#include <stdlib.h>
#include <string.h>

enum { PT_OUT = 0, PT_ANSWERED = 1, PT_LOST = 2 };

void probe_track_init(struct probe_track *t)
{
	memset(t, 0, sizeof(*t));
	t->max_seq_seen = -1;
}

void probe_track_free(struct probe_track *t)
{
	free(t->sent_ns);
	free(t->state);
	probe_track_init(t);
}

int64_t probe_track_send(struct probe_track *t, int64_t now_ns)
{
	if (t->next_seq == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		int64_t *s;
		uint8_t *st;

		if (cap < t->cap)
			return -1;
		s = realloc(t->sent_ns, (size_t)cap * sizeof(*s));
		if (!s)
			return -1;
		t->sent_ns = s;
		st = realloc(t->state, cap);
		if (!st)
			return -1;
		t->state = st;
		t->cap = cap;
	}
	t->sent_ns[t->next_seq] = now_ns;
	t->state[t->next_seq] = PT_OUT;
	t->sent++;
	return t->next_seq++;
}

enum probe_reply probe_track_reply(struct probe_track *t, uint32_t seq,
				   int64_t now_ns, int64_t *rtt_ns)
{
	if (seq >= t->next_seq)
		return PROBE_REPLY_UNKNOWN;
	*rtt_ns = now_ns - t->sent_ns[seq];
	if (t->state[seq] == PT_ANSWERED) {
		t->duplicates++;
		return PROBE_REPLY_DUPLICATE;
	}
	if (t->state[seq] == PT_LOST) {
		t->late++;
		return PROBE_REPLY_LATE;
	}
	t->state[seq] = PT_ANSWERED;
	t->received++;
	if ((int64_t)seq < t->max_seq_seen) {
		t->reordered++;
		return PROBE_REPLY_REORDERED;
	}
	t->max_seq_seen = seq;
	return PROBE_REPLY_OK;
}

uint32_t probe_track_expire(struct probe_track *t, int64_t now_ns,
			    int64_t timeout_ns,
			    void (*on_lost)(uint32_t, int64_t, void *),
			    void *ctx)
{
	uint32_t n = 0;

	while (t->expire_from < t->next_seq &&
	       t->sent_ns[t->expire_from] <= now_ns - timeout_ns) {
		uint32_t s = t->expire_from++;

		if (t->state[s] != PT_OUT)
			continue;
		t->state[s] = PT_LOST;
		t->lost++;
		n++;
		if (on_lost)
			on_lost(s, t->sent_ns[s], ctx);
	}
	return n;
}
