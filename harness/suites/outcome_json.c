#include "outcome_json.h"

#include <math.h>
#include <stdbool.h>

#include "../util/json_file.h"

json_t *outcome_summary_json(const struct suite_outcome *res)
{
	if (!res)
		return json_null();
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o}",
	    "latency_median_ms", json_num(res->lat_median_ms), "latency_p90_ms",
	    json_num(res->lat_p90_ms), "latency_p99_ms",
	    json_num(res->lat_p99_ms), "up_mbps", json_num(res->up_mbps),
	    "down_mbps", json_num(res->down_mbps), "up_jain",
	    json_num(res->up_jain), "down_jain", json_num(res->down_jain),
	    "flows", (json_int_t)res->flows, "flows_connected",
	    (json_int_t)res->flows_connected, "flows_started_2s",
	    (json_int_t)res->flows_started_2s,
	    /* Flent's times are the agents' clock: this far from ours. */
	    "agent_clock_offset_s", json_num(res->clock_offset_s));
}

static bool is_bulk(const struct suite_flow *f)
{
	return f->kind == SUITE_TCP_UP || f->kind == SUITE_TCP_DOWN;
}

json_t *outcome_flows_json(const struct suite_plan *plan,
			   const struct suite_outcome *res)
{
	json_t *a = json_array();

	for (size_t i = 0; res && res->flow_mbps && i < plan->n_flows; i++) {
		const struct suite_flow *f = &plan->flows[i];

		if (!is_bulk(f))
			continue;
		json_array_append_new(
		    a, json_pack("{s:s, s:s, s:s, s:o}", "series", f->series,
				 "station", plan->stations[f->station],
				 "direction",
				 f->kind == SUITE_TCP_UP ? "up" : "down",
				 "mean_mbps", json_num(res->flow_mbps[i])));
	}
	return a;
}

json_t *outcome_station_goodput_json(const struct suite_plan *plan,
				     const struct suite_outcome *res)
{
	json_t *a = json_array();

	for (size_t s = 0; s < plan->n_stations; s++) {
		double up = 0, down = 0;
		bool any = false;

		for (size_t i = 0; res && res->flow_mbps && i < plan->n_flows;
		     i++) {
			const struct suite_flow *f = &plan->flows[i];

			if (f->station != s || !is_bulk(f) ||
			    !isfinite(res->flow_mbps[i]))
				continue;
			any = true;
			if (f->kind == SUITE_TCP_UP)
				up += res->flow_mbps[i];
			else
				down += res->flow_mbps[i];
		}
		if (any)
			json_array_append_new(
			    a, json_pack("{s:s, s:f, s:f}", "name",
					 plan->stations[s], "up_mbps", up,
					 "down_mbps", down));
	}
	return a;
}
