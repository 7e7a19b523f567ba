/* run.json, the record of one run, in one place: its keys, its writer and
 * its reader. The run strategy (strategy/run_record.c) and `airlab lava
 * results` fill a run_doc and write it; the store, the report, compare and
 * the LAVA bench read one back. Sections other layers build (the suite's
 * outcome, the cell's link and airtime, LAVA's job) are written as given
 * and read back into the typed views below. */
#ifndef AIRLAB_RESULTS_RUN_DOC_H
#define AIRLAB_RESULTS_RUN_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/err.h"

/* A number run.json holds as null (not measured) reads as NaN. */
struct run_doc_figure {
	const char *name;
	double value;
};

struct run_doc_station { /* "stations": as wpa_supplicant left each */
	const char *name, *wpa_state;
	bool associated;
	double assoc_s, signal_dbm, txrate_mbps;
};

struct run_doc_goodput { /* "station_goodput" */
	const char *station;
	double up_mbps, down_mbps;
};

struct run_doc_flow { /* "flows": every bulk flow's mean over the load */
	const char *series, *station, *direction;
	double mean_mbps;
};

struct run_doc_link { /* "link": the AP's view of each station */
	const char *station;
	double rate_mbps, tx_bitrate_mbps, signal_dbm, retries, failed;
};

struct run_doc_share {
	const char *station;
	double share;
};

struct run_doc_airtime {    /* "airtime": one per source */
	const char *source; /* "medium", "nl80211" */
	const char *error;  /* why the source has none, or NULL */
	double jain;
	struct run_doc_share *sta;
	size_t n;
};

struct run_doc {
	const char *id, *status, *reasons;
	const char *suite, *plot, *variant; /* plot: Flent's; NULL: totals */
	const char *lab, *lab_file, *topology, *topology_file;
	const char *kernel, *hostapd, *wpa_supplicant, *airlab_commit;
	const char *start, *end; /* ISO 8601, UTC */
	const char *flent_file;	 /* NULL: the run left no Flent file */
	double length_s, step_s; /* NaN: not known */
	/* The sections their owners build, written as given (NULL: null).
	 * "summary", "flows" and "station_goodput" come from the suite's
	 * outcome (suites/outcome_json.h). */
	json_t *ap, *knobs, *dut_image, *boot, *stations, *summary, *flows,
	    *station_goodput, *airtime, *link, *lava;

	/* Read back by run_doc_read (run_doc_free frees them). */
	const char *dut_image_name;	/* the image, else the flash driver */
	struct run_doc_figure *figures; /* "summary" */
	size_t n_figures;
	struct run_doc_station *sta;
	size_t n_sta;
	struct run_doc_goodput *goodput;
	size_t n_goodput;
	struct run_doc_flow *flow;
	size_t n_flow;
	struct run_doc_link *links;
	size_t n_links;
	struct run_doc_airtime *air;
	size_t n_air;
	json_t *root;
	char suite_buf[64];
};

/* DIR/run.json from d, written aside and renamed: a killed run leaves no
 * half file. */
int run_doc_write(const char *dir, const struct run_doc *d, struct al_err *err);
/* DIR/run.json into d. A file that does not parse is an error with its
 * line; one without "id" or "status" is not a run.json. Runs written
 * before run.json named its suite get it from their id. */
int run_doc_read(const char *dir, struct run_doc *d, struct al_err *err);
/* The same from text (a record sent in a LAVA job's log, a fuzzer's
 * input); name stands for the file in errors. */
int run_doc_parse(const char *text, size_t len, const char *name,
		  struct run_doc *d, struct al_err *err);
void run_doc_free(struct run_doc *d);

/* The summary's figure NAME, NaN if the run has none. */
double run_doc_figure(const struct run_doc *d, const char *name);
/* The airtime of SOURCE with per-station shares, or NULL. */
const struct run_doc_airtime *run_doc_airtime(const struct run_doc *d,
					      const char *source);

#endif
