/* The agent's per-probe sequence bookkeeping (loss, reordering,
 * duplicates). libc only. */
#ifndef AIRLAB_AGENT_STATS_H
#define AIRLAB_AGENT_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Tracks every probe sent by sequence number: send time, and whether a
 * reply came. Seq numbers start at 0 and grow by one per probe. */
struct probe_track {
	int64_t *sent_ns;     /* send time per seq (monotonic ns) */
	uint8_t *state;	      /* PT_* per seq */
	uint32_t cap;	      /* slots allocated */
	uint32_t next_seq;    /* seq of the next probe to send */
	uint32_t expire_from; /* lowest seq that may still be outstanding */
	int64_t max_seq_seen; /* highest seq that got a reply, -1 = none */
	uint64_t sent, received, lost, reordered, duplicates, late;
};

enum probe_reply {
	PROBE_REPLY_OK,	       /* first reply, in order */
	PROBE_REPLY_REORDERED, /* first reply, after a higher seq's reply */
	PROBE_REPLY_DUPLICATE, /* seq already answered */
	PROBE_REPLY_LATE,      /* seq already declared lost */
	PROBE_REPLY_UNKNOWN,   /* seq never sent */
};

void probe_track_init(struct probe_track *t);
void probe_track_free(struct probe_track *t);
/* Records the next probe; returns its seq, or -1 if out of memory. */
int64_t probe_track_send(struct probe_track *t, int64_t now_ns);
/* Records a reply; *rtt_ns is the time since its send (when not UNKNOWN). */
enum probe_reply probe_track_reply(struct probe_track *t, uint32_t seq,
				   int64_t now_ns, int64_t *rtt_ns);
/* Declares lost every outstanding probe sent before now - timeout; calls
 * on_lost(seq, sent_ns, ctx) for each, in seq order. Returns the count. */
uint32_t
probe_track_expire(struct probe_track *t, int64_t now_ns, int64_t timeout_ns,
		   void (*on_lost)(uint32_t seq, int64_t sent_ns, void *ctx),
		   void *ctx);

#endif
