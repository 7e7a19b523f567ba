/* LAVA's REST API (v0.2) over libcurl: what `airlab lava` submits and
 * reads. Every error names the URL and what the server said. */
#ifndef AIRLAB_LAVA_REST_H
#define AIRLAB_LAVA_REST_H

#include <jansson.h>

#include "../util/err.h"

struct lava_server {
	char url[1024]; /* "http://host:port", no trailing slash */
	char token[256];
};

/* url as given (a trailing '/' dropped); the token is the first line of
 * token_file, which must not be readable by others. */
int lava_server_init(struct lava_server *s, const char *url,
		     const char *token_file, struct al_err *err);

/* GET url + path ("/api/v0.2/jobs/7/"); *body malloc'd, NUL-terminated.
 * A status other than 2xx is an error quoting the server's detail. */
int lava_get(const struct lava_server *s, const char *path, char **body,
	     struct al_err *err);
/* The same, parsed as JSON. */
json_t *lava_get_json(const struct lava_server *s, const char *path,
		      struct al_err *err);
/* POST a JSON body; the reply parsed as JSON. */
json_t *lava_post_json(const struct lava_server *s, const char *path,
		       json_t *body, struct al_err *err);

/* Who the token is (GET system/whoami): the first thing a command that
 * will change the server asks, before it prepares anything. An unknown
 * token, an anonymous answer or a server that does not answer is an
 * error naming the server. */
int lava_whoami(const struct lava_server *s, char *user, size_t len,
		struct al_err *err);

/* The job's page on the server, for records and messages. */
void lava_job_url(const struct lava_server *s, long id, char *out, size_t len);

#endif
