#include "rest.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A slow server is waited for; one that does not answer at all is not. */
#define LAVA_CONNECT_TIMEOUT_S 10
#define LAVA_TIMEOUT_S	       120

struct buf {
	char *p;
	size_t len;
	int oom;
};

static size_t buf_write(char *data, size_t size, size_t n, void *ctx)
{
	struct buf *b = ctx;
	size_t add = size * n;
	char *q = realloc(b->p, b->len + add + 1);

	if (!q) {
		b->oom = 1;
		return 0;
	}
	b->p = q;
	memcpy(b->p + b->len, data, add);
	b->len += add;
	b->p[b->len] = 0;
	return add;
}

int lava_server_init(struct lava_server *s, const char *url,
		     const char *token_file, struct al_err *err)
{
	struct stat st;
	FILE *fp;
	size_t n;

	memset(s, 0, sizeof(*s));
	if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
		return al_errf(err,
			       "LAVA server '%s': give its URL as http://HOST "
			       "or https://HOST",
			       url);
	n = strlen(url);
	while (n > 0 && url[n - 1] == '/')
		n--;
	if (n >= sizeof(s->url))
		return al_errf(err, "LAVA server URL is too long");
	memcpy(s->url, url, n);
	fp = fopen(token_file, "re");
	if (!fp)
		return al_errf(err, "LAVA token file %s: %s", token_file,
			       strerror(errno));
	/* A token others can read is a token others have. */
	if (fstat(fileno(fp), &st) == 0 && (st.st_mode & 077)) {
		fclose(fp);
		return al_errf(err,
			       "LAVA token file %s is readable by others "
			       "(mode %03o): chmod 600 it",
			       token_file, (unsigned)(st.st_mode & 0777));
	}
	if (!fgets(s->token, sizeof(s->token), fp))
		s->token[0] = 0;
	fclose(fp);
	s->token[strcspn(s->token, "\r\n")] = 0;
	if (!s->token[0])
		return al_errf(err, "LAVA token file %s is empty", token_file);
	return 0;
}

void lava_job_url(const struct lava_server *s, long id, char *out, size_t len)
{
	snprintf(out, len, "%s/scheduler/job/%ld", s->url, id);
}

/* The server's own words from an error body: DRF's {"detail": ...}, else
 * the body's first line. */
static void server_detail(const char *body, char *out, size_t len)
{
	json_t *j = body ? json_loads(body, 0, NULL) : NULL;
	json_t *d = j ? json_object_get(j, "detail") : NULL;

	if (d && json_is_string(d))
		snprintf(out, len, "%s", json_string_value(d));
	else if (j)
		snprintf(out, len, "%.300s", body);
	else if (body)
		snprintf(out, len, "%.*s", (int)strcspn(body, "\n"), body);
	else
		out[0] = 0;
	json_decref(j);
}

static int request(const struct lava_server *s, const char *path,
		   const char *post, char **body, struct al_err *err)
{
	char url[2048], auth[300], detail[400];
	struct curl_slist *h = NULL;
	struct buf b = {0};
	CURLcode rc;
	long status = 0;
	CURL *c;

	*body = NULL;
	snprintf(url, sizeof(url), "%s%s", s->url, path);
	c = curl_easy_init();
	if (!c)
		return al_errf(err, "%s: cannot start libcurl", url);
	snprintf(auth, sizeof(auth), "Authorization: Token %s", s->token);
	h = curl_slist_append(h, auth);
	h = curl_slist_append(h, "Accept: application/json");
	if (post)
		h = curl_slist_append(h, "Content-Type: application/json");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, buf_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT,
			 (long)LAVA_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)LAVA_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (post)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, post);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK) {
		free(b.p);
		return al_errf(err, "LAVA server %s: %s %s: %s", s->url,
			       post ? "POST" : "GET", path,
			       curl_easy_strerror(rc));
	}
	if (b.oom) {
		free(b.p);
		return al_errf(err, "%s: out of memory", url);
	}
	if (status < 200 || status > 299) {
		server_detail(b.p, detail, sizeof(detail));
		free(b.p);
		if (status == 401 || status == 403)
			return al_errf(err,
				       "LAVA server %s refused the token (HTTP "
				       "%ld on %s): %s",
				       s->url, status, path, detail);
		return al_errf(err, "LAVA server %s: %s %s: HTTP %ld: %s",
			       s->url, post ? "POST" : "GET", path, status,
			       detail);
	}
	*body = b.p ? b.p : strdup("");
	return *body ? 0 : al_errf(err, "%s: out of memory", url);
}

int lava_get(const struct lava_server *s, const char *path, char **body,
	     struct al_err *err)
{
	return request(s, path, NULL, body, err);
}

static json_t *parse(const struct lava_server *s, const char *path, char *body,
		     struct al_err *err)
{
	json_error_t je;
	json_t *j = json_loads(body, 0, &je);

	if (!j)
		al_errf(err, "LAVA server %s: %s: not JSON (%s): %.120s",
			s->url, path, je.text, body);
	free(body);
	return j;
}

json_t *lava_get_json(const struct lava_server *s, const char *path,
		      struct al_err *err)
{
	char *body;

	if (request(s, path, NULL, &body, err) < 0)
		return NULL;
	return parse(s, path, body, err);
}

json_t *lava_post_json(const struct lava_server *s, const char *path,
		       json_t *body, struct al_err *err)
{
	char *text = json_dumps(body, JSON_COMPACT), *reply;
	int rc;

	if (!text) {
		al_errf(err, "%s%s: cannot encode the request", s->url, path);
		return NULL;
	}
	rc = request(s, path, text, &reply, err);
	free(text);
	return rc < 0 ? NULL : parse(s, path, reply, err);
}

int lava_whoami(const struct lava_server *s, char *user, size_t len,
		struct al_err *err)
{
	json_t *o = lava_get_json(s, "/api/v0.2/system/whoami/", err);
	json_t *u = o ? json_object_get(o, "user") : NULL;

	if (!o)
		return -1;
	snprintf(user, len, "%s",
		 json_is_string(u) ? json_string_value(u) : "");
	json_decref(o);
	if (!user[0])
		return al_errf(err,
			       "LAVA server %s does not know the token's user "
			       "(whoami answered anonymous)",
			       s->url);
	return 0;
}
