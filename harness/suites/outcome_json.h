/* A suite run's own part of its record (run.json): the summary, every bulk
 * flow's mean goodput and each station's goodput per direction. `airlab
 * run` writes it into run.json; airlab-suite-local writes it where the
 * host cannot watch the run (a LAVA job), for the host to store. */
#ifndef AIRLAB_SUITES_OUTCOME_JSON_H
#define AIRLAB_SUITES_OUTCOME_JSON_H

#include <jansson.h>

#include "run.h"
#include "suites.h"

/* run.json's "summary" (null when res is NULL: the run never started). */
json_t *outcome_summary_json(const struct suite_outcome *res);
/* run.json's "flows": every bulk flow's mean goodput over the load. */
json_t *outcome_flows_json(const struct suite_plan *plan,
			   const struct suite_outcome *res);
/* run.json's "station_goodput": per station, its bulk flows summed. */
json_t *outcome_station_goodput_json(const struct suite_plan *plan,
				     const struct suite_outcome *res);

#endif
