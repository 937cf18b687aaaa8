/*
 * echo_floor.c: the C floor of chatter-bench.
 *
 * The same echo bot as bench/python_peer/echo_peer.py and the Swift fleet, written in plain C on the same sockets
 * and the same SQLite, so that every table has a column saying what the machine itself does: one epoll loop on
 * one thread for every bot of the configuration file, non-blocking sockets, and per bot:
 *
 *   - sign-in over REST (POST /auth/refresh with the stored refresh token, else POST /auth/login with the stored
 *     deviceId), then GET /conversations, /friend-requests and /friends once session.ready has arrived; these
 *     calls are blocking (a minimal HTTP/1.1 client, one connection per request, Connection: close);
 *   - a minimal RFC 6455 client: handshake (Sec-WebSocket-Accept checked), masked client frames, text frames,
 *     fragmented messages, ping/pong control frames, close;
 *   - sync.request with the contiguous cursor of every conversation, hasMore followed over REST;
 *   - per batch of frames read in one epoll wake-up, ONE SQLite transaction (WAL, synchronous=NORMAL, one file per
 *     bot, the Python peer's tables): every new message recorded as seen (dedupe), its reply put in the outbox,
 *     the cursors moved, the acks read marked; only then the message.send frames (clientMessageId: the same
 *     UUIDv5 of "<userId>/<messageId>/0" as the Python peer), and one receipt.read per conversation. An ack's
 *     seq moves the cursor too: the bot's own replies never come back as message.new, and without their seqs
 *     the contiguous cursor would stop at the first reply;
 *   - after every (re)connect, every unacknowledged outbox entry sent again with its clientMessageId;
 *   - ping every heartbeatIntervalMs; no pong within 10 s drops the connection.
 *
 * It speaks chatter-bench's line protocol: JSON events on stdout (boot, live, acked, error), commands on stdin
 * (start, acked), end of stdin stops the bots.
 *
 * What it leaves out (a floor is measured on the happy path): TLS (http:// and ws:// only), HTTP keep-alive and
 * chunked bodies, WebSocket extensions (no permessage-deflate) and UTF-8 validation of text frames, a general
 * JSON parser (it extracts the fields it needs, with a real scanner, so nesting, key order and escapes are
 * handled), concurrent sign-ins (they run one after the other and block the loop meanwhile), paging of
 * GET /conversations beyond its first 100, and the backoff schedule: a lost connection is logged as an error
 * event and retried after 1 s (close 4002 stops the bot, 4003 signs in afresh, 4008 waits the seconds given).
 *
 * Build: cc -O2 -o echo_floor echo_floor.c -lsqlite3    (the bench does this on first use)
 * Run:   echo_floor <configuration.json>
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Limits: a text message over 1 MiB closes the socket (the Python peer's max_size); one wake-up reads at most
 * 4 MiB of a socket before handling it (level-triggered epoll comes back for the rest). */
#define MAX_MESSAGE (1u << 20)
#define MAX_READ_PER_WAKEUP (4u << 20)
#define MAX_HTTP_RESPONSE (16u << 20)
#define JSON_MAX_DEPTH 64
#define PONG_TIMEOUT_MS 10000
#define READY_TIMEOUT_MS 10000
#define SYNC_TIMEOUT_MS 30000
#define RECONNECT_DELAY_MS 1000
#define SOCKET_TIMEOUT_S 15
/* Seqs handled beyond a gap in a conversation, at most; more are not tracked (sync fills the gap later). */
#define MAX_AHEAD 4096

/* ---------------------------------------------------------------------------------------------------------------
 * Buffers, time, events
 * ------------------------------------------------------------------------------------------------------------ */

/* A growable byte buffer; out of memory ends the process with an error event (there is nothing to fall back on). */
typedef struct {
    char *data;
    size_t len, cap;
} buf_t;

static void emit_line(const char *line, size_t len);

static void out_of_memory(void) {
    static const char line[] = "{\"event\":\"error\",\"message\":\"c floor: out of memory\"}\n";
    emit_line(line, sizeof line - 1);
    exit(1);
}

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory();
    return q;
}

static char *xstrndup(const char *s, size_t n) {
    char *d = xrealloc(NULL, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

static void buf_reserve(buf_t *b, size_t extra) {
    if (extra > SIZE_MAX / 2 - b->len) out_of_memory();
    if (b->len + extra <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra) cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

static void buf_append(buf_t *b, const void *p, size_t n) {
    buf_reserve(b, n);
    if (n) memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void buf_puts(buf_t *b, const char *s) { buf_append(b, s, strlen(s)); }

static void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(buf_t *b, const char *fmt, ...) {
    /* Formatted in place when it fits in what is reserved, else again once the room is there. */
    buf_reserve(b, 128);
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->data + b->len, room, fmt, ap);
        va_end(ap);
        if (n < 0) return;
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        buf_reserve(b, (size_t)n + 1);
    }
}

/* Drops the first n bytes. */
static void buf_consume(buf_t *b, size_t n) {
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

static void buf_free(buf_t *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* The buffer as a C string (a NUL after its bytes, not counted in len). */
static const char *buf_cstr(buf_t *b) {
    buf_reserve(b, 1);
    b->data[b->len] = 0;
    return b->data;
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static double wall_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One line on stdout, whole (the driver reads lines). */
static void emit_line(const char *line, size_t len) {
    while (len > 0) {
        ssize_t n = write(STDOUT_FILENO, line, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        line += n;
        len -= (size_t)n;
    }
}

static void json_escape(buf_t *b, const char *s, size_t n);

/* {"event":"error","message":…} with the message formatted like printf. */
static void emit_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit_error(const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
    buf_t line = {0};
    buf_puts(&line, "{\"event\":\"error\",\"message\":");
    json_escape(&line, text, len);
    buf_puts(&line, "}\n");
    emit_line(line.data, line.len);
    buf_free(&line);
}

/* ---------------------------------------------------------------------------------------------------------------
 * JSON: a scanner that finds fields, not a parser that builds trees. Every step is bounds-checked against the end
 * of the text; a malformed text makes the lookup fail, never read past the end.
 * ------------------------------------------------------------------------------------------------------------ */

/* A JSON value's raw text (a string keeps its quotes and escapes). */
typedef struct {
    const char *p;
    size_t n;
} span_t;

static const char *json_ws(const char *p, const char *e) {
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

/* Past the string token at p (which is '"'); NULL when unterminated or holding a raw control character. */
static const char *json_skip_string(const char *p, const char *e) {
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c == '\\') {
            if (e - p < 2) return NULL;
            p++;
        } else if (c < 0x20) {
            return NULL;
        }
    }
    return NULL;
}

static int json_number_char(char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* Past the value at p (leading whitespace allowed); NULL when malformed or nested deeper than JSON_MAX_DEPTH. */
static const char *json_skip(const char *p, const char *e, int depth) {
    p = json_ws(p, e);
    if (p >= e) return NULL;
    switch (*p) {
    case '"':
        return json_skip_string(p, e);
    case '{':
    case '[': {
        if (depth >= JSON_MAX_DEPTH) return NULL;
        int object = *p == '{';
        char close = object ? '}' : ']';
        p = json_ws(p + 1, e);
        if (p < e && *p == close) return p + 1;
        for (;;) {
            if (object) {
                p = json_ws(p, e);
                if (p >= e || *p != '"') return NULL;
                if (!(p = json_skip_string(p, e))) return NULL;
                p = json_ws(p, e);
                if (p >= e || *p != ':') return NULL;
                p++;
            }
            if (!(p = json_skip(p, e, depth + 1))) return NULL;
            p = json_ws(p, e);
            if (p >= e) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p++;
        }
    }
    case 't':
        return e - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
    case 'f':
        return e - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
    case 'n':
        return e - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
    default:
        if (*p != '-' && !(*p >= '0' && *p <= '9')) return NULL;
        for (p++; p < e && json_number_char(*p); p++) {
        }
        return p;
    }
}

/* Walks the members of an object or the elements of an array, one at a time. */
typedef struct {
    const char *p, *e;
    int object, done;
} json_iter_t;

static int json_iter_init(json_iter_t *it, span_t v) {
    const char *e = v.p + v.n;
    const char *p = json_ws(v.p, e);
    if (p >= e || (*p != '{' && *p != '[')) return -1;
    it->object = *p == '{';
    it->e = e;
    it->p = json_ws(p + 1, e);
    it->done = it->p < e && *it->p == (it->object ? '}' : ']');
    return 0;
}

/* 1 with the next member (key: the key's string token; may be NULL for arrays), 0 at the end, -1 if malformed. */
static int json_iter_next(json_iter_t *it, span_t *key, span_t *value) {
    if (it->done) return 0;
    const char *p = json_ws(it->p, it->e), *e = it->e;
    if (it->object) {
        if (p >= e || *p != '"') return -1;
        const char *k = p;
        if (!(p = json_skip_string(p, e))) return -1;
        if (key) *key = (span_t){k, (size_t)(p - k)};
        p = json_ws(p, e);
        if (p >= e || *p != ':') return -1;
        p = json_ws(p + 1, e);
    }
    const char *v = p;
    if (!(p = json_skip(p, e, 1))) return -1;
    *value = (span_t){v, (size_t)(p - v)};
    p = json_ws(p, e);
    if (p >= e) return -1;
    if (*p == ',') {
        it->p = p + 1;
    } else if (*p == (it->object ? '}' : ']')) {
        it->done = 1;
        it->p = p + 1;
    } else {
        return -1;
    }
    return 1;
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int json_hex4(const char *p, const char *e, uint32_t *out) {
    if (e - p < 4) return -1;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(p[i]);
        if (h < 0) return -1;
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return 0;
}

/* Decodes the string token v (quotes, escapes, surrogate pairs) into UTF-8 at out (at most cap bytes; the decoded
 * text is never longer than the token). 0 and *len on success; -1 if v is not a well-formed string or too long. */
static int json_str_decode(span_t v, char *out, size_t cap, size_t *len) {
    if (v.n < 2 || v.p[0] != '"' || v.p[v.n - 1] != '"') return -1;
    const char *p = v.p + 1, *e = v.p + v.n - 1;
    size_t o = 0;
    while (p < e) {
        unsigned char c = (unsigned char)*p++;
        if (c != '\\') {
            if (o >= cap) return -1;
            out[o++] = (char)c;
            continue;
        }
        if (p >= e) return -1;
        uint32_t cp;
        switch (*p++) {
        case '"': cp = '"'; break;
        case '\\': cp = '\\'; break;
        case '/': cp = '/'; break;
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            if (json_hex4(p, e, &cp) < 0) return -1;
            p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t low;
                if (e - p >= 6 && p[0] == '\\' && p[1] == 'u' && json_hex4(p + 2, e, &low) == 0 && low >= 0xDC00 &&
                    low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                } else {
                    cp = 0xFFFD; /* a lone high surrogate */
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD; /* a lone low surrogate */
            }
            break;
        default:
            return -1;
        }
        char u[4];
        size_t n;
        if (cp < 0x80) {
            u[0] = (char)cp;
            n = 1;
        } else if (cp < 0x800) {
            u[0] = (char)(0xC0 | cp >> 6);
            u[1] = (char)(0x80 | (cp & 0x3F));
            n = 2;
        } else if (cp < 0x10000) {
            u[0] = (char)(0xE0 | cp >> 12);
            u[1] = (char)(0x80 | (cp >> 6 & 0x3F));
            u[2] = (char)(0x80 | (cp & 0x3F));
            n = 3;
        } else {
            u[0] = (char)(0xF0 | cp >> 18);
            u[1] = (char)(0x80 | (cp >> 12 & 0x3F));
            u[2] = (char)(0x80 | (cp >> 6 & 0x3F));
            u[3] = (char)(0x80 | (cp & 0x3F));
            n = 4;
        }
        if (cap - o < n) return -1;
        memcpy(out + o, u, n);
        o += n;
    }
    *len = o;
    return 0;
}

/* Whether the key token k is `key` (escaped keys are decoded first). */
static int json_key_is(span_t k, const char *key) {
    size_t n = strlen(key);
    if (!memchr(k.p, '\\', k.n)) return k.n == n + 2 && memcmp(k.p + 1, key, n) == 0;
    char decoded[128];
    size_t len;
    return json_str_decode(k, decoded, sizeof decoded, &len) == 0 && len == n && memcmp(decoded, key, n) == 0;
}

/* The member `key` of the object v; 0 if found. */
static int json_member(span_t v, const char *key, span_t *out) {
    json_iter_t it;
    span_t k, value;
    if (json_iter_init(&it, v) < 0 || !it.object) return -1;
    while (json_iter_next(&it, &k, &value) == 1) {
        if (json_key_is(k, key)) {
            *out = value;
            return 0;
        }
    }
    return -1;
}

static int json_is_null(span_t v) { return v.n == 4 && memcmp(v.p, "null", 4) == 0; }
static int json_is_true(span_t v) { return v.n == 4 && memcmp(v.p, "true", 4) == 0; }
static int json_is_string(span_t v) { return v.n >= 2 && v.p[0] == '"'; }

/* An integer (no fraction, no exponent, at most 18 digits); 0 on success. */
static int json_int(span_t v, int64_t *out) {
    const char *p = v.p, *e = v.p + v.n;
    int negative = p < e && *p == '-';
    if (negative) p++;
    int64_t x = 0;
    int digits = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        if (++digits > 18) return -1;
        x = x * 10 + (*p - '0');
    }
    if (p != e || digits == 0) return -1;
    *out = negative ? -x : x;
    return 0;
}

/* The string v decoded into a new C string; NULL unless v is a string without NUL characters. */
static char *json_strdup(span_t v) {
    if (!json_is_string(v)) return NULL;
    char *s = xrealloc(NULL, v.n + 1);
    size_t len;
    if (json_str_decode(v, s, v.n, &len) < 0 || memchr(s, 0, len)) {
        free(s);
        return NULL;
    }
    s[len] = 0;
    return s;
}

/* Appends s as a JSON string token (quoted, escaped; bytes from 0x80 up pass through as they are). */
static void json_escape(buf_t *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    buf_reserve(b, n + 2);
    b->data[b->len++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            buf_append(b, esc, 2);
        } else if (c < 0x20) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            buf_append(b, esc, 6);
        } else {
            buf_reserve(b, 1);
            b->data[b->len++] = (char)c;
        }
    }
    buf_append(b, "\"", 1);
}

/* ---------------------------------------------------------------------------------------------------------------
 * SHA-1 (the handshake's Sec-WebSocket-Accept and the replies' UUIDv5), base64, randomness
 * ------------------------------------------------------------------------------------------------------------ */

typedef struct {
    uint32_t h[5];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} sha1_t;

static uint32_t rol32(uint32_t x, int n) { return x << n | x >> (32 - n); }

static void sha1_block(uint32_t h[5], const uint8_t *p) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDC;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6;
        }
        uint32_t t = rol32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

static void sha1_init(sha1_t *s) {
    static const uint32_t start[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    memcpy(s->h, start, sizeof start);
    s->bytes = 0;
    s->used = 0;
}

static void sha1_update(sha1_t *s, const void *data, size_t n) {
    const uint8_t *p = data;
    s->bytes += n;
    while (n > 0) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used == 64) {
            sha1_block(s->h, s->block);
            s->used = 0;
        }
    }
}

static void sha1_final(sha1_t *s, uint8_t out[20]) {
    uint64_t bits = s->bytes * 8;
    uint8_t pad = 0x80, zero = 0, length[8];
    sha1_update(s, &pad, 1);
    while (s->used != 56) sha1_update(s, &zero, 1);
    for (int i = 0; i < 8; i++) length[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha1_update(s, length, 8);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (uint8_t)(s->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)s->h[i];
    }
}

/* Base64 of n bytes into out (at least 4 * ((n + 2) / 3) + 1 bytes), NUL-terminated. */
static void base64(const uint8_t *p, size_t n, char *out) {
    static const char table[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[o++] = table[v >> 18 & 63];
        out[o++] = table[v >> 12 & 63];
        out[o++] = i + 1 < n ? table[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? table[v & 63] : '=';
    }
    out[o] = 0;
}

/* xorshift64*, seeded from getrandom: masking keys and handshake nonces (RFC 6455 asks for unpredictable masks
 * against proxies' cache poisoning; on loopback a seeded generator is what a floor affords). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static void rng_seed(void) {
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) == (ssize_t)sizeof seed && seed != 0) rng_state = seed;
    else rng_state ^= (uint64_t)now_ms() * 0x2545F4914F6CDD1Dull;
}

static uint64_t rng_next(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* The reply's clientMessageId: uuid5(REPLY_NAMESPACE, "<userId>/<messageId>/0"), as the Python peer derives it,
 * written as 36 characters and a NUL. Deterministic, so a reply resent or redone after a restart keeps its key. */
static void reply_client_message_id(const char *user_id, const char *message_id, size_t message_id_len, char out[37]) {
    static const uint8_t reply_namespace[16] = {0x6f, 0x1c, 0x2c, 0x1e, 0x6b, 0x5f, 0x4d, 0x0e,
                                                0x9a, 0x3b, 0x0a, 0x8f, 0x2d, 0x1b, 0x7c, 0x55};
    static const char hex[] = "0123456789abcdef";
    sha1_t s;
    uint8_t digest[20];
    sha1_init(&s);
    sha1_update(&s, reply_namespace, 16);
    sha1_update(&s, user_id, strlen(user_id));
    sha1_update(&s, "/", 1);
    sha1_update(&s, message_id, message_id_len);
    sha1_update(&s, "/0", 2);
    sha1_final(&s, digest);
    digest[6] = (uint8_t)((digest[6] & 0x0F) | 0x50);
    digest[8] = (uint8_t)((digest[8] & 0x3F) | 0x80);
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[o++] = '-';
        out[o++] = hex[digest[i] >> 4];
        out[o++] = hex[digest[i] & 15];
    }
    out[o] = 0;
}

/* ---------------------------------------------------------------------------------------------------------------
 * Configuration and addresses
 * ------------------------------------------------------------------------------------------------------------ */

/* host, port and path of an http:// or ws:// URL. */
typedef struct {
    char host[256];
    char port[8];
    char *path; /* "/v1", "/v1/ws"; "" for none */
    struct sockaddr_storage address;
    socklen_t address_len;
} endpoint_t;

static struct {
    endpoint_t api, ws;
    char *client_key;
    char *data_directory;
} config;

/* Parses `url` (scheme http/ws, or https/wss refused: TLS is left out) and resolves its host once. */
static int endpoint_parse(endpoint_t *ep, const char *url, const char *plain_scheme) {
    size_t scheme_len = strlen(plain_scheme);
    if (strncmp(url, plain_scheme, scheme_len) != 0 || strncmp(url + scheme_len, "://", 3) != 0) {
        emit_error("c floor: %s is not a %s:// URL (TLS is left out)", url, plain_scheme);
        return -1;
    }
    const char *p = url + scheme_len + 3;
    const char *host_end;
    const char *host = p;
    if (*p == '[') {
        host = p + 1;
        host_end = strchr(p, ']');
        if (!host_end) return -1;
        p = host_end + 1;
    } else {
        host_end = p + strcspn(p, ":/?");
        p = host_end;
    }
    size_t host_len = (size_t)(host_end - host);
    if (host_len == 0 || host_len >= sizeof ep->host) return -1;
    memcpy(ep->host, host, host_len);
    ep->host[host_len] = 0;
    strcpy(ep->port, "80");
    if (*p == ':') {
        p++;
        size_t port_len = strspn(p, "0123456789");
        if (port_len == 0 || port_len >= sizeof ep->port) return -1;
        memcpy(ep->port, p, port_len);
        ep->port[port_len] = 0;
        p += port_len;
    }
    ep->path = xstrndup(p, strlen(p));
    /* "/v1/" and "/v1" alike: the paths appended start with '/'. */
    size_t path_len = strlen(ep->path);
    if (path_len > 0 && ep->path[path_len - 1] == '/') ep->path[path_len - 1] = 0;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found = NULL;
    int status = getaddrinfo(ep->host, ep->port, &hints, &found);
    if (status != 0 || !found) {
        emit_error("c floor: cannot resolve %s: %s", ep->host, gai_strerror(status));
        return -1;
    }
    memcpy(&ep->address, found->ai_addr, found->ai_addrlen);
    ep->address_len = found->ai_addrlen;
    freeaddrinfo(found);
    return 0;
}

/* A blocking TCP connection to ep, with SOCKET_TIMEOUT_S on connect, sends and receives; -1 on failure (errno). */
static int connect_blocking(const endpoint_t *ep) {
    int fd = socket(ep->address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct timeval timeout = {.tv_sec = SOCKET_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (const struct sockaddr *)&ep->address, ep->address_len) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t sent = send(fd, p, n, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        p += sent;
        n -= (size_t)sent;
    }
    return 0;
}

/* Appends the percent-encoding of s (RFC 3986 unreserved characters stay). */
static void percent_encode(buf_t *b, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            buf_append(b, s, 1);
        } else {
            char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
            buf_append(b, esc, 3);
        }
    }
}

/* Finds the header `name` (case-insensitive) in the header block [p, e) of an HTTP response; its value trimmed. */
static int http_header(const char *p, const char *e, const char *name, span_t *value) {
    size_t name_len = strlen(name);
    while (p < e) {
        const char *line_end = memchr(p, '\n', (size_t)(e - p));
        if (!line_end) line_end = e;
        const char *colon = memchr(p, ':', (size_t)(line_end - p));
        if (colon && (size_t)(colon - p) == name_len && strncasecmp(p, name, name_len) == 0) {
            const char *v = colon + 1, *ve = line_end;
            while (v < ve && (*v == ' ' || *v == '\t')) v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t')) ve--;
            *value = (span_t){v, (size_t)(ve - v)};
            return 0;
        }
        p = line_end + 1;
    }
    return -1;
}

/* The status of an HTTP/1.x status line at p; -1 if there is none. */
static int http_status(const char *p, const char *e) {
    if (e - p < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[8] != ' ') return -1;
    int status = 0;
    for (int i = 9; i < 12; i++) {
        if (p[i] < '0' || p[i] > '9') return -1;
        status = status * 10 + (p[i] - '0');
    }
    return status;
}

/* One blocking REST exchange with the API: `method` `path` (appended to the API's base path), an optional JSON
 * body and bearer token. Returns the HTTP status with the body in *body, or -1 (a network or protocol failure,
 * described in err). */
static int http_request(const char *method, const char *path, const buf_t *json_body, const char *token, buf_t *body,
                        char *err, size_t err_len) {
    buf_t request = {0}, response = {0};
    int status = -1;
    body->len = 0;
    buf_printf(&request, "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nX-Client-Key: %s\r\nConnection: close\r\n", method,
               config.api.path, path, config.api.host, config.api.port, config.client_key);
    if (token) buf_printf(&request, "Authorization: Bearer %s\r\n", token);
    if (json_body) buf_puts(&request, "Content-Type: application/json\r\n");
    buf_printf(&request, "Content-Length: %zu\r\n\r\n", json_body ? json_body->len : 0);
    if (json_body) buf_append(&request, json_body->data, json_body->len);

    int fd = connect_blocking(&config.api);
    if (fd < 0) {
        snprintf(err, err_len, "connect to the API: %s", strerror(errno));
        goto done;
    }
    if (send_all(fd, request.data, request.len) < 0) {
        snprintf(err, err_len, "send to the API: %s", strerror(errno));
        goto done;
    }
    /* Read until the body is complete (Content-Length) or the server closes. */
    size_t header_end = 0, content_length = SIZE_MAX;
    for (;;) {
        if (header_end && content_length != SIZE_MAX && response.len - header_end >= content_length) break;
        if (response.len >= MAX_HTTP_RESPONSE) {
            snprintf(err, err_len, "API response over %u bytes", MAX_HTTP_RESPONSE);
            goto done;
        }
        buf_reserve(&response, 65536);
        ssize_t n = recv(fd, response.data + response.len, response.cap - response.len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(err, err_len, "read from the API: %s", strerror(errno));
            goto done;
        }
        if (n == 0) break;
        response.len += (size_t)n;
        if (!header_end) {
            const char *blank = memmem(response.data, response.len, "\r\n\r\n", 4);
            if (!blank) continue;
            header_end = (size_t)(blank - response.data) + 4;
            span_t value;
            const char *headers = response.data, *headers_end = response.data + header_end;
            if (http_header(headers, headers_end, "Transfer-Encoding", &value) == 0) {
                snprintf(err, err_len, "chunked API responses are left out");
                goto done;
            }
            if (http_header(headers, headers_end, "Content-Length", &value) == 0) {
                int64_t length;
                if (json_int(value, &length) < 0 || length < 0 || length > MAX_HTTP_RESPONSE) {
                    snprintf(err, err_len, "bad Content-Length from the API");
                    goto done;
                }
                content_length = (size_t)length;
            }
        }
    }
    if (!header_end) {
        snprintf(err, err_len, "the API closed before its response's headers");
        goto done;
    }
    status = http_status(response.data, response.data + header_end);
    if (status < 0) {
        snprintf(err, err_len, "no HTTP status line from the API");
        goto done;
    }
    size_t available = response.len - header_end;
    if (content_length != SIZE_MAX) {
        if (available < content_length) {
            snprintf(err, err_len, "the API's response was cut short");
            status = -1;
            goto done;
        }
        available = content_length;
    }
    buf_append(body, response.data + header_end, available);
done:
    if (fd >= 0) close(fd);
    buf_free(&request);
    buf_free(&response);
    return status;
}

/* ---------------------------------------------------------------------------------------------------------------
 * The bots
 * ------------------------------------------------------------------------------------------------------------ */

/* A conversation: its contiguous cursor, seqs handled beyond a gap, and its receipt pending in this batch. */
typedef struct {
    char *id;
    size_t id_len;
    int64_t cursor;
    int64_t *ahead;
    size_t ahead_count, ahead_cap;
    int64_t read_pending; /* the highest seq handled in the current batch, 0 if none */
    int moved;            /* its cursor row is written in the current batch */
} conversation_t;

/* A string in a bot's batch arena (offset, not pointer: the arena may move as it grows). */
typedef struct {
    size_t off, len;
} astr_t;

/* A message.new of the current batch. */
typedef struct {
    astr_t id, conversation, sender, type, body;
    int64_t seq;
    int has_body;
} batch_message_t;

/* A message.ack of the current batch; its conversation and seq, when given, move the cursor past the bot's own
 * message (which never comes back as message.new, so without them the cursor would stop at the first reply). */
typedef struct {
    astr_t client_message_id, message_id, conversation;
    int64_t seq; /* 0 when the ack has no usable conversationId and seq */
} batch_ack_t;

/* Where a bot is: started one after the other, then connecting, syncing and live, or waiting to reconnect. */
typedef enum {
    BOT_WAITING_TO_START,
    BOT_RECONNECT_WAIT, /* reconnect_at */
    BOT_WAIT_READY,     /* connected, waiting for session.ready */
    BOT_WAIT_SYNC,      /* sync.request sent */
    BOT_LIVE,
    BOT_STOPPED,
} bot_state_t;

/* One bot: its account, its store (one SQLite file), its connection, and the batch read in this wake-up. */
typedef struct {
    int index;
    char *name, *username, *password;
    sqlite3 *db;
    sqlite3_stmt *begin, *commit, *rollback, *insert_seen, *insert_outbox, *upsert_cursor, *insert_conversation,
        *mark_acked, *store_session, *pending_outbox;
    char *user_id, *device_id, *access_token, *refresh_token;
    int fresh_sign_in; /* the next sign-in forgets the device (close 4003) */

    conversation_t *conversations;
    size_t conversation_count, conversation_cap;

    int fd;
    bot_state_t state;
    int connections;
    buf_t in;            /* bytes read, not yet parsed into frames */
    buf_t fragments;     /* a fragmented text message being assembled */
    int in_fragmented;   /* a fragmented message is open */
    int fragmented_text; /* ... and it is text (a binary one is dropped) */
    buf_t out;           /* frames not yet written */
    int wants_writable;  /* EPOLLOUT is on */
    int lost;            /* the connection is to be dropped after this wake-up */
    int close_code;       /* the close code (the server's, or ours for a protocol error), 0 if none */
    int closed_by_server; /* the server sent a close frame (answered already) */
    char close_reason[64];

    int64_t deadline;     /* session.ready / sync.response due by; 0 if none */
    int64_t next_ping;    /* when the next ping goes out */
    int64_t pong_due;     /* the ping's pong due by; 0 if no ping is outstanding */
    int64_t reconnect_at; /* BOT_RECONNECT_WAIT: when to connect again */
    int heartbeat_ms;
    uint64_t request_number;

    buf_t arena; /* the batch's strings */
    batch_message_t *messages;
    size_t message_count, message_cap;
    batch_ack_t *acks;
    size_t ack_count, ack_cap;
    size_t *touched; /* conversations with a receipt or cursor in this batch */
    size_t touched_count, touched_cap;
    buf_t replies; /* the batch's message.send frames, sent once its transaction is committed */
} bot_t;

static bot_t *bots;
static size_t bot_count;
static int epoll_fd = -1;
static uint64_t acked_total; /* replies marked acknowledged, all bots */
static buf_t scratch;        /* JSON text of one outgoing frame */
static int64_t next_scan;    /* when the loop next looks at the bots' timers */

/* Has the loop look at the timers by `when` (they are looked at once a second anyway). */
static void schedule(int64_t when) {
    if (when && when < next_scan) next_scan = when;
}

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS session ("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " user_id TEXT NOT NULL, device_id TEXT NOT NULL, access_token TEXT NOT NULL, refresh_token TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, updated_at TEXT);"
    "CREATE TABLE IF NOT EXISTS seen (message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS outbox ("
    " client_message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, body TEXT NOT NULL,"
    " created_at REAL NOT NULL, acked_at REAL, message_id TEXT);"
    "CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (created_at) WHERE acked_at IS NULL;";

static const char *astr(const bot_t *b, astr_t s) { return b->arena.data + s.off; }

/* Copies the decoded string v into the arena; -1 unless v is a string (ids must also be non-empty, NUL-free). */
static int arena_string(bot_t *b, span_t v, astr_t *out, int is_id) {
    if (!json_is_string(v)) return -1;
    buf_reserve(&b->arena, v.n + 1);
    size_t len;
    char *dst = b->arena.data + b->arena.len;
    if (json_str_decode(v, dst, v.n, &len) < 0) return -1;
    if (is_id && (len == 0 || memchr(dst, 0, len))) return -1;
    dst[len] = 0; /* ids are used as C strings too */
    *out = (astr_t){b->arena.len, len};
    b->arena.len += len + 1;
    return 0;
}

static conversation_t *conversation_find(bot_t *b, const char *id, size_t len, size_t *index) {
    /* Linear: the bench's bots have 1 to 8 conversations. */
    for (size_t i = 0; i < b->conversation_count; i++) {
        conversation_t *c = &b->conversations[i];
        if (c->id_len == len && memcmp(c->id, id, len) == 0) {
            if (index) *index = i;
            return c;
        }
    }
    return NULL;
}

static size_t conversation_add(bot_t *b, const char *id, size_t len, int64_t cursor) {
    if (b->conversation_count == b->conversation_cap) {
        b->conversation_cap = b->conversation_cap ? b->conversation_cap * 2 : 8;
        b->conversations = xrealloc(b->conversations, b->conversation_cap * sizeof *b->conversations);
    }
    conversation_t *c = &b->conversations[b->conversation_count];
    memset(c, 0, sizeof *c);
    c->id = xstrndup(id, len);
    c->id_len = len;
    c->cursor = cursor;
    return b->conversation_count++;
}

/* Moves the contiguous cursor past seq when it closes the gap; seqs beyond a gap wait in `ahead`, sorted, until
 * the gap closes (the bot's own messages' seqs come with their acks). */
static void conversation_advance(conversation_t *c, int64_t seq) {
    if (seq <= c->cursor) return;
    if (seq == c->cursor + 1 && c->ahead_count == 0) {
        c->cursor = seq;
        return;
    }
    /* Where seq goes in the sorted array (binary search), unless it is there already. */
    size_t low = 0, high = c->ahead_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (c->ahead[middle] < seq) low = middle + 1;
        else high = middle;
    }
    if ((low == c->ahead_count || c->ahead[low] != seq) && c->ahead_count < MAX_AHEAD) {
        if (c->ahead_count == c->ahead_cap) {
            c->ahead_cap = c->ahead_cap ? c->ahead_cap * 2 : 16;
            c->ahead = xrealloc(c->ahead, c->ahead_cap * sizeof *c->ahead);
        }
        memmove(c->ahead + low + 1, c->ahead + low, (c->ahead_count - low) * sizeof *c->ahead);
        c->ahead[low] = seq;
        c->ahead_count++;
    }
    size_t taken = 0;
    while (taken < c->ahead_count && c->ahead[taken] <= c->cursor + 1) {
        if (c->ahead[taken] == c->cursor + 1) c->cursor++;
        taken++;
    }
    if (taken) {
        memmove(c->ahead, c->ahead + taken, (c->ahead_count - taken) * sizeof *c->ahead);
        c->ahead_count -= taken;
    }
}

static void bot_touch(bot_t *b, size_t index) {
    conversation_t *c = &b->conversations[index];
    if (c->moved || c->read_pending) return;
    if (b->touched_count == b->touched_cap) {
        b->touched_cap = b->touched_cap ? b->touched_cap * 2 : 8;
        b->touched = xrealloc(b->touched, b->touched_cap * sizeof *b->touched);
    }
    b->touched[b->touched_count++] = index;
}

/* --- the store ------------------------------------------------------------------------------------------------ */

static int prepare(bot_t *b, sqlite3_stmt **stmt, const char *sql) {
    if (sqlite3_prepare_v2(b->db, sql, -1, stmt, NULL) != SQLITE_OK) {
        emit_error("%s: cannot prepare %s: %s", b->name, sql, sqlite3_errmsg(b->db));
        return -1;
    }
    return 0;
}

/* Runs a statement without results to its end and resets it; SQLITE_DONE on success. */
static int step_done(sqlite3_stmt *stmt) {
    int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return rc;
}

static char *column_strdup(sqlite3_stmt *stmt, int column) {
    const unsigned char *text = sqlite3_column_text(stmt, column);
    return text ? xstrndup((const char *)text, (size_t)sqlite3_column_bytes(stmt, column)) : NULL;
}

/* Opens <dataDirectory>/<name>.sqlite (WAL, synchronous=NORMAL, the Python peer's schema) and reads the session
 * and the cursors kept there. */
static int store_open(bot_t *b) {
    buf_t path = {0};
    buf_printf(&path, "%s/%s.sqlite", config.data_directory, b->name);
    int rc = sqlite3_open_v2(buf_cstr(&path), &b->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             NULL);
    if (rc == SQLITE_OK) chmod(buf_cstr(&path), 0600);
    buf_free(&path);
    char *error = NULL;
    if (rc != SQLITE_OK ||
        sqlite3_exec(b->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", NULL, NULL, &error) != SQLITE_OK ||
        sqlite3_exec(b->db, schema, NULL, NULL, &error) != SQLITE_OK) {
        emit_error("%s: cannot open the store: %s", b->name, error ? error : sqlite3_errmsg(b->db));
        sqlite3_free(error);
        return -1;
    }
    if (prepare(b, &b->begin, "BEGIN") < 0 || prepare(b, &b->commit, "COMMIT") < 0 ||
        prepare(b, &b->rollback, "ROLLBACK") < 0 ||
        prepare(b, &b->insert_seen, "INSERT OR IGNORE INTO seen (message_id, conversation_id, seq) VALUES (?, ?, ?)") < 0 ||
        prepare(b, &b->insert_outbox,
                "INSERT OR IGNORE INTO outbox (client_message_id, conversation_id, body, created_at) VALUES (?, ?, ?, ?)") < 0 ||
        prepare(b, &b->upsert_cursor,
                "INSERT INTO conversations (id, last_seq) VALUES (?, ?) "
                "ON CONFLICT (id) DO UPDATE SET last_seq = excluded.last_seq") < 0 ||
        prepare(b, &b->insert_conversation,
                "INSERT OR IGNORE INTO conversations (id, last_seq, updated_at) VALUES (?, 0, ?)") < 0 ||
        prepare(b, &b->mark_acked,
                "UPDATE outbox SET acked_at = ?, message_id = ? WHERE client_message_id = ? AND acked_at IS NULL") < 0 ||
        prepare(b, &b->store_session,
                "INSERT OR REPLACE INTO session (id, user_id, device_id, access_token, refresh_token) "
                "VALUES (1, ?, ?, ?, ?)") < 0 ||
        prepare(b, &b->pending_outbox,
                "SELECT client_message_id, conversation_id, body FROM outbox WHERE acked_at IS NULL "
                "ORDER BY created_at") < 0)
        return -1;
    sqlite3_stmt *stmt;
    if (prepare(b, &stmt, "SELECT user_id, device_id, access_token, refresh_token FROM session") < 0) return -1;
    if (sqlite3_step(stmt) == SQLITE_ROW) {
        b->user_id = column_strdup(stmt, 0);
        b->device_id = column_strdup(stmt, 1);
        b->access_token = column_strdup(stmt, 2);
        b->refresh_token = column_strdup(stmt, 3);
    }
    sqlite3_finalize(stmt);
    if (prepare(b, &stmt, "SELECT id, last_seq FROM conversations") < 0) return -1;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char *id = sqlite3_column_text(stmt, 0);
        if (id) conversation_add(b, (const char *)id, (size_t)sqlite3_column_bytes(stmt, 0), sqlite3_column_int64(stmt, 1));
    }
    sqlite3_finalize(stmt);
    return 0;
}

static void store_close(bot_t *b) {
    sqlite3_stmt **statements[] = {&b->begin,         &b->commit,         &b->rollback,
                                   &b->insert_seen,   &b->insert_outbox,  &b->upsert_cursor,
                                   &b->insert_conversation, &b->mark_acked, &b->store_session,
                                   &b->pending_outbox};
    for (size_t i = 0; i < sizeof statements / sizeof *statements; i++) {
        sqlite3_finalize(*statements[i]);
        *statements[i] = NULL;
    }
    if (b->db) sqlite3_close(b->db);
    b->db = NULL;
}

/* --- frames out ----------------------------------------------------------------------------------------------- */

/* Appends one masked client frame (FIN set) with `opcode` and `payload` to `out`. */
static void ws_frame(buf_t *out, int opcode, const char *payload, size_t n) {
    uint8_t header[14];
    size_t h = 0;
    header[h++] = (uint8_t)(0x80 | opcode);
    if (n < 126) {
        header[h++] = (uint8_t)(0x80 | n);
    } else if (n < 65536) {
        header[h++] = 0x80 | 126;
        header[h++] = (uint8_t)(n >> 8);
        header[h++] = (uint8_t)n;
    } else {
        header[h++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--) header[h++] = (uint8_t)((uint64_t)n >> (8 * i));
    }
    uint32_t key = (uint32_t)rng_next();
    uint8_t mask[4];
    memcpy(mask, &key, 4);
    memcpy(header + h, mask, 4);
    h += 4;
    buf_reserve(out, h + n);
    memcpy(out->data + out->len, header, h);
    uint8_t *dst = (uint8_t *)out->data + out->len + h;
    const uint8_t *src = (const uint8_t *)payload;
    size_t i = 0;
    /* Four bytes at a time: the mask repeats every four bytes from the payload's start. */
    for (; i + 4 <= n; i += 4) {
        uint32_t word;
        memcpy(&word, src + i, 4);
        word ^= key;
        memcpy(dst + i, &word, 4);
    }
    for (; i < n; i++) dst[i] = src[i] ^ mask[i & 3];
    out->len += h + n;
}

static void ws_text(buf_t *out, const buf_t *json) { ws_frame(out, 0x1, json->data, json->len); }

/* A message.send of one reply, into `out`. */
static void append_message_send(buf_t *out, const char *client_message_id, const char *conversation_id,
                                size_t conversation_len, const char *body, size_t body_len) {
    scratch.len = 0;
    buf_printf(&scratch, "{\"id\":\"%s\",\"type\":\"message.send\",\"data\":{\"conversationId\":", client_message_id);
    json_escape(&scratch, conversation_id, conversation_len);
    buf_printf(&scratch, ",\"clientMessageId\":\"%s\",\"type\":\"text\",\"body\":", client_message_id);
    json_escape(&scratch, body, body_len);
    buf_puts(&scratch, ",\"mediaId\":null,\"replyToId\":null}}");
    ws_text(out, &scratch);
}

static void append_receipt_read(buf_t *out, const conversation_t *c) {
    scratch.len = 0;
    buf_puts(&scratch, "{\"type\":\"receipt.read\",\"data\":{\"conversationId\":");
    json_escape(&scratch, c->id, c->id_len);
    buf_printf(&scratch, ",\"seq\":%lld}}", (long long)c->read_pending);
    ws_text(out, &scratch);
}

static void bot_set_writable_interest(bot_t *b, int wants) {
    if (b->wants_writable == wants || b->fd < 0) return;
    struct epoll_event event = {.events = EPOLLIN | (wants ? EPOLLOUT : 0), .data.ptr = b};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, b->fd, &event) == 0) b->wants_writable = wants;
}

/* Writes what `out` holds as far as the socket takes it; the rest waits for EPOLLOUT. */
static void bot_flush(bot_t *b) {
    size_t written = 0;
    while (b->fd >= 0 && written < b->out.len) {
        ssize_t n = send(b->fd, b->out.data + written, b->out.len - written, MSG_NOSIGNAL);
        if (n > 0) {
            written += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        } else {
            b->lost = 1;
            break;
        }
    }
    buf_consume(&b->out, written);
    bot_set_writable_interest(b, b->fd >= 0 && b->out.len > 0 && !b->lost);
}

/* --- the batch: one transaction per wake-up ------------------------------------------------------------------- */

static void batch_clear(bot_t *b) {
    b->arena.len = 0;
    b->message_count = 0;
    b->ack_count = 0;
    b->replies.len = 0;
    for (size_t i = 0; i < b->touched_count; i++) {
        conversation_t *c = &b->conversations[b->touched[i]];
        c->moved = 0;
        c->read_pending = 0;
    }
    b->touched_count = 0;
}

/* Adds the Message object v to the batch; -1 if it lacks id, conversationId, seq or senderId. */
static int batch_add_message(bot_t *b, span_t v) {
    batch_message_t m = {0};
    int have_id = 0, have_conversation = 0, have_seq = 0, have_sender = 0;
    json_iter_t it;
    span_t key, value;
    if (json_iter_init(&it, v) < 0 || !it.object) return -1;
    int r;
    while ((r = json_iter_next(&it, &key, &value)) == 1) {
        if (json_key_is(key, "id")) {
            have_id = arena_string(b, value, &m.id, 1) == 0;
        } else if (json_key_is(key, "conversationId")) {
            have_conversation = arena_string(b, value, &m.conversation, 1) == 0;
        } else if (json_key_is(key, "seq")) {
            have_seq = json_int(value, &m.seq) == 0 && m.seq > 0;
        } else if (json_key_is(key, "senderId")) {
            have_sender = arena_string(b, value, &m.sender, 1) == 0;
        } else if (json_key_is(key, "type")) {
            if (arena_string(b, value, &m.type, 0) < 0) m.type = (astr_t){0, 0};
        } else if (json_key_is(key, "body")) {
            m.has_body = !json_is_null(value) && arena_string(b, value, &m.body, 0) == 0;
        }
    }
    if (r < 0 || !have_id || !have_conversation || !have_seq || !have_sender) return -1;
    if (b->message_count == b->message_cap) {
        b->message_cap = b->message_cap ? b->message_cap * 2 : 64;
        b->messages = xrealloc(b->messages, b->message_cap * sizeof *b->messages);
    }
    b->messages[b->message_count++] = m;
    return 0;
}

/* Adds the messages of the array v to the batch; the count added, or -1 if v is not an array. */
static int batch_add_messages(bot_t *b, span_t v) {
    json_iter_t it;
    span_t element;
    int count = 0, r;
    if (json_iter_init(&it, v) < 0 || it.object) return -1;
    while ((r = json_iter_next(&it, NULL, &element)) == 1) {
        if (batch_add_message(b, element) == 0) count++;
        else emit_error("%s: a message without id, conversationId, seq or senderId, ignored", b->name);
    }
    return r < 0 ? -1 : count;
}

static int batch_add_ack(bot_t *b, span_t data) {
    batch_ack_t a = {0};
    int have_client_message_id = 0, have_message_id = 0, have_conversation = 0;
    json_iter_t it;
    span_t key, value;
    if (json_iter_init(&it, data) < 0 || !it.object) return -1;
    int r;
    while ((r = json_iter_next(&it, &key, &value)) == 1) {
        if (json_key_is(key, "clientMessageId")) have_client_message_id = arena_string(b, value, &a.client_message_id, 1) == 0;
        else if (json_key_is(key, "messageId")) have_message_id = arena_string(b, value, &a.message_id, 1) == 0;
        else if (json_key_is(key, "conversationId")) have_conversation = arena_string(b, value, &a.conversation, 1) == 0;
        else if (json_key_is(key, "seq") && (json_int(value, &a.seq) < 0 || a.seq < 0)) a.seq = 0;
    }
    if (r < 0 || !have_client_message_id || !have_message_id) return -1;
    if (!have_conversation) a.seq = 0;
    if (b->ack_count == b->ack_cap) {
        b->ack_cap = b->ack_cap ? b->ack_cap * 2 : 64;
        b->acks = xrealloc(b->acks, b->ack_cap * sizeof *b->acks);
    }
    b->acks[b->ack_count++] = a;
    return 0;
}

static int bind_astr(bot_t *b, sqlite3_stmt *stmt, int column, astr_t s) {
    return sqlite3_bind_text(stmt, column, astr(b, s), (int)s.len, SQLITE_STATIC);
}

/* Commits the batch in ONE transaction (messages seen, replies in the outbox, cursors, acks marked), then queues
 * its message.send frames and one receipt.read per conversation. -1 if the store failed: nothing is sent, and the
 * caller drops the connection (the messages come back with the next sync). */
static int batch_commit(bot_t *b) {
    if (b->message_count == 0 && b->ack_count == 0) return 0;
    double now = wall_seconds();
    uint64_t acked = 0;
    int ok = step_done(b->begin) == SQLITE_DONE;
    for (size_t i = 0; ok && i < b->message_count; i++) {
        const batch_message_t *m = &b->messages[i];
        bind_astr(b, b->insert_seen, 1, m->id);
        bind_astr(b, b->insert_seen, 2, m->conversation);
        sqlite3_bind_int64(b->insert_seen, 3, m->seq);
        if (step_done(b->insert_seen) != SQLITE_DONE) {
            ok = 0;
            break;
        }
        if (sqlite3_changes(b->db) == 0) continue; /* seen before: a duplicate delivery */
        size_t index;
        if (!conversation_find(b, astr(b, m->conversation), m->conversation.len, &index))
            index = conversation_add(b, astr(b, m->conversation), m->conversation.len, 0);
        bot_touch(b, index);
        conversation_t *c = &b->conversations[index];
        conversation_advance(c, m->seq);
        c->moved = 1;
        if (m->seq > c->read_pending) c->read_pending = m->seq;
        int own = !b->user_id || strcmp(astr(b, m->sender), b->user_id) == 0; /* no identity: no reply */
        int text = m->type.len == 4 && memcmp(astr(b, m->type), "text", 4) == 0;
        if (own || !text || !m->has_body || m->body.len == 0) continue;
        char client_message_id[37];
        reply_client_message_id(b->user_id, astr(b, m->id), m->id.len, client_message_id);
        /* "echo: <body>", appended to the arena after every string read (reserved first: the body is in the arena
         * too, and must not move while it is copied) */
        buf_reserve(&b->arena, 6 + m->body.len);
        size_t reply_start = b->arena.len;
        buf_append(&b->arena, "echo: ", 6);
        buf_append(&b->arena, astr(b, m->body), m->body.len);
        astr_t reply = {reply_start, b->arena.len - reply_start};
        sqlite3_bind_text(b->insert_outbox, 1, client_message_id, 36, SQLITE_STATIC);
        bind_astr(b, b->insert_outbox, 2, m->conversation);
        bind_astr(b, b->insert_outbox, 3, reply);
        sqlite3_bind_double(b->insert_outbox, 4, now);
        if (step_done(b->insert_outbox) != SQLITE_DONE) {
            ok = 0;
            break;
        }
        append_message_send(&b->replies, client_message_id, astr(b, m->conversation), m->conversation.len,
                            astr(b, reply), reply.len);
        b->arena.len = reply_start; /* the reply's text is in the frame now */
    }
    for (size_t i = 0; ok && i < b->ack_count; i++) {
        const batch_ack_t *a = &b->acks[i];
        sqlite3_bind_double(b->mark_acked, 1, now);
        bind_astr(b, b->mark_acked, 2, a->message_id);
        bind_astr(b, b->mark_acked, 3, a->client_message_id);
        ok = step_done(b->mark_acked) == SQLITE_DONE;
        if (ok) acked += (uint64_t)sqlite3_changes(b->db);
        if (!ok || a->seq == 0) continue;
        /* The reply's own seq: the cursor goes past it as past a message handled. */
        size_t index;
        if (!conversation_find(b, astr(b, a->conversation), a->conversation.len, &index))
            index = conversation_add(b, astr(b, a->conversation), a->conversation.len, 0);
        conversation_t *c = &b->conversations[index];
        int64_t before = c->cursor;
        conversation_advance(c, a->seq);
        if (c->cursor != before) {
            bot_touch(b, index);
            c->moved = 1;
        }
    }
    for (size_t i = 0; ok && i < b->touched_count; i++) {
        conversation_t *c = &b->conversations[b->touched[i]];
        if (!c->moved) continue;
        sqlite3_bind_text(b->upsert_cursor, 1, c->id, (int)c->id_len, SQLITE_STATIC);
        sqlite3_bind_int64(b->upsert_cursor, 2, c->cursor);
        ok = step_done(b->upsert_cursor) == SQLITE_DONE;
    }
    if (ok) ok = step_done(b->commit) == SQLITE_DONE;
    if (!ok) {
        emit_error("%s: the batch's transaction failed: %s", b->name, sqlite3_errmsg(b->db));
        step_done(b->rollback);
        /* The cursors moved in memory for nothing: read them back as committed. */
        for (size_t i = 0; i < b->touched_count; i++) {
            conversation_t *c = &b->conversations[b->touched[i]];
            sqlite3_stmt *stmt;
            if (sqlite3_prepare_v2(b->db, "SELECT last_seq FROM conversations WHERE id = ?", -1, &stmt, NULL) != SQLITE_OK)
                continue;
            sqlite3_bind_text(stmt, 1, c->id, (int)c->id_len, SQLITE_STATIC);
            c->cursor = sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
            c->ahead_count = 0;
            sqlite3_finalize(stmt);
        }
        batch_clear(b);
        b->lost = 1;
        return -1;
    }
    acked_total += acked;
    buf_append(&b->out, b->replies.data, b->replies.len);
    for (size_t i = 0; i < b->touched_count; i++) {
        const conversation_t *c = &b->conversations[b->touched[i]];
        if (c->read_pending) append_receipt_read(&b->out, c);
    }
    batch_clear(b);
    return 0;
}

/* Every unacknowledged outbox entry again, with its clientMessageId (after every (re)connect). */
static void resend_outbox(bot_t *b) {
    sqlite3_stmt *stmt = b->pending_outbox;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *client_message_id = (const char *)sqlite3_column_text(stmt, 0);
        const char *conversation_id = (const char *)sqlite3_column_text(stmt, 1);
        const char *body = (const char *)sqlite3_column_text(stmt, 2);
        if (!client_message_id || !conversation_id || !body || sqlite3_column_bytes(stmt, 0) != 36) continue;
        append_message_send(&b->out, client_message_id, conversation_id, (size_t)sqlite3_column_bytes(stmt, 1), body,
                            (size_t)sqlite3_column_bytes(stmt, 2));
    }
    sqlite3_reset(stmt);
}

/* --- REST: sign-in and refresh -------------------------------------------------------------------------------- */

static void replace_string(char **field, char *value) {
    free(*field);
    *field = value;
}

/* Keeps the Session in `body` (memory and store); -1 if it lacks a field. */
static int store_session(bot_t *b, const buf_t *body) {
    span_t session = {body->data, body->len}, user, value;
    char *user_id = NULL, *device_id = NULL, *access_token = NULL, *refresh_token = NULL;
    if (json_member(session, "user", &user) == 0 && json_member(user, "id", &value) == 0) user_id = json_strdup(value);
    if (json_member(session, "deviceId", &value) == 0) device_id = json_strdup(value);
    if (json_member(session, "accessToken", &value) == 0) access_token = json_strdup(value);
    if (json_member(session, "refreshToken", &value) == 0) refresh_token = json_strdup(value);
    if (!user_id || !device_id || !access_token || !refresh_token) {
        free(user_id);
        free(device_id);
        free(access_token);
        free(refresh_token);
        emit_error("%s: a session without user.id, deviceId, accessToken or refreshToken", b->name);
        return -1;
    }
    replace_string(&b->user_id, user_id);
    replace_string(&b->device_id, device_id);
    replace_string(&b->access_token, access_token);
    replace_string(&b->refresh_token, refresh_token);
    sqlite3_bind_text(b->store_session, 1, b->user_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->store_session, 2, b->device_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->store_session, 3, b->access_token, -1, SQLITE_STATIC);
    sqlite3_bind_text(b->store_session, 4, b->refresh_token, -1, SQLITE_STATIC);
    if (step_done(b->store_session) != SQLITE_DONE) {
        emit_error("%s: cannot store the session: %s", b->name, sqlite3_errmsg(b->db));
        return -1;
    }
    return 0;
}

/* Whether an error body's code is `code`. */
static int error_code_is(const buf_t *body, const char *code) {
    span_t value;
    return json_member((span_t){body->data, body->len}, "code", &value) == 0 && json_key_is(value, code);
}

typedef enum { SIGN_IN_OK, SIGN_IN_RETRY, SIGN_IN_REFUSED } sign_in_t;

/* The stored refresh token, else a login with the stored device (one device for life). */
static sign_in_t sign_in(bot_t *b) {
    char err[256] = "";
    buf_t request = {0}, body = {0};
    sign_in_t result = SIGN_IN_RETRY;
    int status;
    if (b->fresh_sign_in) {
        replace_string(&b->refresh_token, NULL);
        replace_string(&b->device_id, NULL);
        b->fresh_sign_in = 0;
    }
    if (b->refresh_token) {
        buf_puts(&request, "{\"refreshToken\":");
        json_escape(&request, b->refresh_token, strlen(b->refresh_token));
        buf_puts(&request, "}");
        status = http_request("POST", "/auth/refresh", &request, NULL, &body, err, sizeof err);
        if (status == 200) {
            result = store_session(b, &body) == 0 ? SIGN_IN_OK : SIGN_IN_RETRY;
            goto done;
        }
        if (status != 401) {
            emit_error("%s: refresh failed (trying again in 1 s): %s", b->name, status < 0 ? err : buf_cstr(&body));
            goto done;
        }
    }
    request.len = 0;
    buf_puts(&request, "{\"username\":");
    json_escape(&request, b->username, strlen(b->username));
    buf_puts(&request, ",\"password\":");
    json_escape(&request, b->password, strlen(b->password));
    buf_puts(&request, ",\"deviceId\":");
    if (b->device_id) json_escape(&request, b->device_id, strlen(b->device_id));
    else buf_puts(&request, "null");
    buf_puts(&request, ",\"device\":{\"name\":\"c-floor\",\"platform\":\"c\"}}");
    status = http_request("POST", "/auth/login", &request, NULL, &body, err, sizeof err);
    if (status == 200) {
        result = store_session(b, &body) == 0 ? SIGN_IN_OK : SIGN_IN_RETRY;
    } else if (status == 401 && error_code_is(&body, "INVALID_CREDENTIALS")) {
        emit_error("%s: credentials refused, stopping", b->name);
        result = SIGN_IN_REFUSED;
    } else {
        emit_error("%s: login failed (trying again in 1 s): %s", b->name, status < 0 ? err : buf_cstr(&body));
    }
done:
    buf_free(&request);
    buf_free(&body);
    return result;
}

/* GET /conversations (new ones get a cursor at 0), /friend-requests, /friends: what a bot refreshes after
 * session.ready. -1 on failure. */
static int refresh_over_rest(bot_t *b) {
    char err[256] = "";
    buf_t body = {0};
    int result = -1;
    int status = http_request("GET", "/conversations", NULL, b->access_token, &body, err, sizeof err);
    if (status != 200) {
        emit_error("%s: GET /conversations failed: %s", b->name, status < 0 ? err : buf_cstr(&body));
        goto done;
    }
    span_t list, conversation, value;
    json_iter_t it;
    if (json_member((span_t){body.data, body.len}, "conversations", &list) < 0 || json_iter_init(&it, list) < 0 ||
        it.object) {
        emit_error("%s: GET /conversations: no conversations array", b->name);
        goto done;
    }
    int ok = step_done(b->begin) == SQLITE_DONE, r = 0;
    while (ok && (r = json_iter_next(&it, NULL, &conversation)) == 1) {
        if (json_member(conversation, "id", &value) < 0) continue;
        char *id = json_strdup(value);
        if (!id || !*id) {
            free(id);
            continue;
        }
        if (!conversation_find(b, id, strlen(id), NULL)) {
            conversation_add(b, id, strlen(id), 0);
            char *updated_at = json_member(conversation, "updatedAt", &value) == 0 ? json_strdup(value) : NULL;
            sqlite3_bind_text(b->insert_conversation, 1, id, -1, SQLITE_STATIC);
            if (updated_at) sqlite3_bind_text(b->insert_conversation, 2, updated_at, -1, SQLITE_STATIC);
            else sqlite3_bind_null(b->insert_conversation, 2);
            ok = step_done(b->insert_conversation) == SQLITE_DONE;
            free(updated_at);
        }
        free(id);
    }
    if (ok) ok = step_done(b->commit) == SQLITE_DONE;
    if (!ok) {
        emit_error("%s: cannot store the conversations: %s", b->name, sqlite3_errmsg(b->db));
        step_done(b->rollback);
        goto done;
    }
    status = http_request("GET", "/friend-requests", NULL, b->access_token, &body, err, sizeof err);
    if (status != 200) {
        emit_error("%s: GET /friend-requests failed: %s", b->name, status < 0 ? err : buf_cstr(&body));
        goto done;
    }
    status = http_request("GET", "/friends", NULL, b->access_token, &body, err, sizeof err);
    if (status != 200) {
        emit_error("%s: GET /friends failed: %s", b->name, status < 0 ? err : buf_cstr(&body));
        goto done;
    }
    result = 0;
done:
    buf_free(&body);
    return result;
}

/* --- the connection ------------------------------------------------------------------------------------------- */

/* Closes the socket; unless the bot stops, it connects again after `delay_ms`. The batch not yet committed is
 * dropped: its messages come back with the next sync, and unacknowledged replies are resent from the outbox. */
static void bot_drop(bot_t *b, const char *why, int delay_ms) {
    if (b->fd >= 0) close(b->fd); /* also leaves the epoll set */
    b->fd = -1;
    b->in.len = 0;
    b->out.len = 0;
    b->fragments.len = 0;
    b->in_fragmented = 0;
    b->wants_writable = 0;
    b->lost = 0;
    b->deadline = b->pong_due = 0;
    batch_clear(b);
    if (b->state == BOT_STOPPED) return;
    emit_error("%s: connection lost (%s); connecting again in %.1f s", b->name, why, delay_ms / 1000.0);
    b->state = BOT_RECONNECT_WAIT;
    b->reconnect_at = now_ms() + delay_ms;
    schedule(b->reconnect_at);
}

/* Opens the WebSocket (blocking handshake, then non-blocking) and waits for session.ready in the loop. */
static int ws_connect(bot_t *b, char *err, size_t err_len) {
    uint8_t nonce[16];
    for (int i = 0; i < 16; i += 8) {
        uint64_t r = rng_next();
        memcpy(nonce + i, &r, 8);
    }
    char key[25], expected[29];
    base64(nonce, 16, key);
    static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    sha1_t s;
    uint8_t digest[20];
    sha1_init(&s);
    sha1_update(&s, key, strlen(key));
    sha1_update(&s, guid, sizeof guid - 1);
    sha1_final(&s, digest);
    base64(digest, 20, expected);

    buf_t request = {0}, response = {0};
    int fd = -1;
    buf_printf(&request, "GET %s%cclientKey=", config.ws.path[0] ? config.ws.path : "/",
               strchr(config.ws.path, '?') ? '&' : '?');
    percent_encode(&request, config.client_key);
    buf_puts(&request, "&token=");
    percent_encode(&request, b->access_token);
    buf_printf(&request,
               " HTTP/1.1\r\nHost: %s:%s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
               "Sec-WebSocket-Version: 13\r\n\r\n",
               config.ws.host, config.ws.port, key);
    fd = connect_blocking(&config.ws);
    if (fd < 0) {
        snprintf(err, err_len, "connect: %s", strerror(errno));
        goto fail;
    }
    if (send_all(fd, request.data, request.len) < 0) {
        snprintf(err, err_len, "handshake send: %s", strerror(errno));
        goto fail;
    }
    const char *blank = NULL;
    while (!blank) {
        if (response.len > 16384) {
            snprintf(err, err_len, "handshake response too long");
            goto fail;
        }
        buf_reserve(&response, 4096);
        ssize_t n = recv(fd, response.data + response.len, response.cap - response.len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(err, err_len, "handshake: %s", n == 0 ? "closed by the server" : strerror(errno));
            goto fail;
        }
        response.len += (size_t)n;
        blank = memmem(response.data, response.len, "\r\n\r\n", 4);
    }
    const char *headers_end = blank + 4;
    int status = http_status(response.data, headers_end);
    span_t accept;
    if (status != 101) {
        snprintf(err, err_len, "handshake answered with status %d", status);
        goto fail;
    }
    if (http_header(response.data, headers_end, "Sec-WebSocket-Accept", &accept) < 0 || accept.n != 28 ||
        memcmp(accept.p, expected, 28) != 0) {
        snprintf(err, err_len, "handshake: wrong Sec-WebSocket-Accept");
        goto fail;
    }
    /* Frames the server wrote right after its response were read with it: they are the first input. */
    b->in.len = 0;
    buf_append(&b->in, headers_end, response.len - (size_t)(headers_end - response.data));
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        snprintf(err, err_len, "fcntl: %s", strerror(errno));
        goto fail;
    }
    struct epoll_event event = {.events = EPOLLIN, .data.ptr = b};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) < 0) {
        snprintf(err, err_len, "epoll_ctl: %s", strerror(errno));
        goto fail;
    }
    buf_free(&request);
    buf_free(&response);
    return fd;
fail:
    if (fd >= 0) close(fd);
    buf_free(&request);
    buf_free(&response);
    return -1;
}

static void bot_process_input(bot_t *b, const char *why);

/* Signs in (refresh or login), connects, and waits for session.ready. */
static void bot_connect(bot_t *b) {
    sign_in_t signed_in = sign_in(b);
    if (signed_in == SIGN_IN_REFUSED) {
        b->state = BOT_STOPPED;
        return;
    }
    char err[256] = "";
    int fd = signed_in == SIGN_IN_OK ? ws_connect(b, err, sizeof err) : -1;
    if (fd < 0) {
        b->state = BOT_RECONNECT_WAIT;
        b->reconnect_at = now_ms() + RECONNECT_DELAY_MS;
        schedule(b->reconnect_at);
        /* A failed sign-in has said why already: one error event per attempt. */
        if (signed_in == SIGN_IN_OK) emit_error("%s: cannot connect (%s); trying again in 1 s", b->name, err);
        return;
    }
    b->fd = fd;
    b->state = BOT_WAIT_READY;
    b->deadline = now_ms() + READY_TIMEOUT_MS;
    b->close_code = 0;
    b->closed_by_server = 0;
    schedule(b->deadline);
    if (b->in.len > 0) bot_process_input(b, NULL);
}

/* Follows hasMore of a synced conversation over REST, a page at a time, each page its own batch. */
static int sync_page_over_rest(bot_t *b, const char *conversation_id) {
    char err[256] = "";
    buf_t path = {0}, body = {0};
    int result = -1;
    for (int more = 1; more;) {
        conversation_t *c = conversation_find(b, conversation_id, strlen(conversation_id), NULL);
        int64_t after = c ? c->cursor : 0;
        path.len = 0;
        buf_puts(&path, "/conversations/");
        percent_encode(&path, conversation_id);
        buf_printf(&path, "/messages?afterSeq=%lld&limit=100", (long long)after);
        int status = http_request("GET", buf_cstr(&path), NULL, b->access_token, &body, err, sizeof err);
        if (status != 200) {
            emit_error("%s: GET %s failed: %s", b->name, buf_cstr(&path), status < 0 ? err : buf_cstr(&body));
            goto done;
        }
        span_t page = {body.data, body.len}, messages, has_more;
        int added = json_member(page, "messages", &messages) == 0 ? batch_add_messages(b, messages) : -1;
        if (added < 0 || batch_commit(b) < 0) goto done;
        more = added > 0 && json_member(page, "hasMore", &has_more) == 0 && json_is_true(has_more);
        /* A page that moved no cursor would come back the same: stop there (the next sync tries again). */
        c = conversation_find(b, conversation_id, strlen(conversation_id), NULL);
        if (!c || c->cursor == after) more = 0;
    }
    result = 0;
done:
    buf_free(&path);
    buf_free(&body);
    return result;
}

static void go_live(bot_t *b) {
    b->state = BOT_LIVE;
    b->deadline = 0;
    b->connections++;
    char line[96];
    int n = snprintf(line, sizeof line, "{\"event\":\"live\",\"bot\":%d,\"connection\":%d}\n", b->index, b->connections);
    emit_line(line, (size_t)n);
}

/* session.ready: refresh over REST, then sync.request with every conversation's cursor (or live at once). */
static void on_session_ready(bot_t *b, span_t data) {
    span_t value;
    int64_t heartbeat = 25000;
    if (json_member(data, "heartbeatIntervalMs", &value) == 0 && json_int(value, &heartbeat) == 0 && heartbeat > 0)
        b->heartbeat_ms = heartbeat > 3600000 ? 3600000 : (int)heartbeat;
    else
        b->heartbeat_ms = 25000;
    b->next_ping = now_ms() + b->heartbeat_ms;
    if (refresh_over_rest(b) < 0) {
        b->lost = 1;
        return;
    }
    /* The replies the last connection left unacknowledged, before the sync queues new ones (which would
     * otherwise go out twice). */
    resend_outbox(b);
    if (b->conversation_count == 0) {
        go_live(b);
        return;
    }
    scratch.len = 0;
    buf_printf(&scratch, "{\"id\":\"s%llu\",\"type\":\"sync.request\",\"data\":{\"conversations\":{",
               (unsigned long long)++b->request_number);
    for (size_t i = 0; i < b->conversation_count; i++) {
        if (i) buf_puts(&scratch, ",");
        json_escape(&scratch, b->conversations[i].id, b->conversations[i].id_len);
        buf_printf(&scratch, ":%lld", (long long)b->conversations[i].cursor);
    }
    buf_puts(&scratch, "}}}");
    ws_text(&b->out, &scratch);
    b->state = BOT_WAIT_SYNC;
    b->deadline = now_ms() + SYNC_TIMEOUT_MS;
}

/* sync.response: its messages in one batch, hasMore followed over REST, then live. */
static void on_sync_response(bot_t *b, span_t data) {
    span_t conversations, key, result, messages, has_more;
    json_iter_t it;
    char **more = NULL;
    size_t more_count = 0;
    if (batch_commit(b) < 0) return; /* what came before the response first */
    if (json_member(data, "conversations", &conversations) < 0 || json_iter_init(&it, conversations) < 0 ||
        !it.object) {
        emit_error("%s: a sync.response without conversations", b->name);
        b->lost = 1;
        return;
    }
    int r;
    while ((r = json_iter_next(&it, &key, &result)) == 1) {
        if (json_member(result, "messages", &messages) == 0) batch_add_messages(b, messages);
        if (json_member(result, "hasMore", &has_more) == 0 && json_is_true(has_more)) {
            char *id = json_strdup(key);
            if (id) {
                more = xrealloc(more, (more_count + 1) * sizeof *more);
                more[more_count++] = id;
            }
        }
    }
    int ok = r == 0 && batch_commit(b) == 0;
    for (size_t i = 0; i < more_count; i++) {
        if (ok) ok = sync_page_over_rest(b, more[i]) == 0;
        free(more[i]);
    }
    free(more);
    if (!ok) {
        b->lost = 1;
        return;
    }
    go_live(b);
}

/* One text message from the server. */
static void on_text(bot_t *b, const char *text, size_t n) {
    json_iter_t it;
    span_t key, value, type = {0}, data = {0};
    if (json_iter_init(&it, (span_t){text, n}) < 0 || !it.object) return; /* not a JSON object: ignored */
    int r;
    while ((r = json_iter_next(&it, &key, &value)) == 1) {
        if (json_key_is(key, "type")) type = value;
        else if (json_key_is(key, "data")) data = value;
    }
    if (r < 0 || !type.p) return;
    if (json_key_is(type, "message.new")) {
        if (!data.p || batch_add_message(b, data) < 0)
            emit_error("%s: a message.new without id, conversationId, seq or senderId, ignored", b->name);
    } else if (json_key_is(type, "message.ack")) {
        if (!data.p || batch_add_ack(b, data) < 0)
            emit_error("%s: a message.ack without clientMessageId or messageId, ignored", b->name);
    } else if (json_key_is(type, "pong")) {
        b->pong_due = 0;
    } else if (json_key_is(type, "session.ready")) {
        if (b->state == BOT_WAIT_READY) on_session_ready(b, data.p ? data : (span_t){"{}", 2});
    } else if (json_key_is(type, "sync.response")) {
        if (b->state == BOT_WAIT_SYNC && data.p) on_sync_response(b, data);
    } else if (json_key_is(type, "error")) {
        emit_error("%s: %.*s", b->name, data.p ? (int)(data.n > 400 ? 400 : data.n) : 0, data.p ? data.p : "");
    }
    /* Every other type (presence, receipts, typing, …) is ignored, as the protocol asks. */
}

/* Parses the frames in `in`; text messages go to on_text. Protocol errors close the connection. */
static void ws_parse(bot_t *b) {
    size_t pos = 0;
    const uint8_t *data = (const uint8_t *)b->in.data;
    while (!b->lost && b->in.len - pos >= 2) {
        uint8_t b0 = data[pos], b1 = data[pos + 1];
        int fin = b0 & 0x80, opcode = b0 & 0x0F;
        size_t header = 2, available = b->in.len - pos;
        uint64_t length = b1 & 0x7F;
        if ((b0 & 0x70) || (b1 & 0x80)) { /* no extension was negotiated; servers do not mask */
            b->lost = 1;
            b->close_code = 1002;
            break;
        }
        if (length == 126) {
            if (available < 4) break;
            length = (uint64_t)data[pos + 2] << 8 | data[pos + 3];
            header = 4;
        } else if (length == 127) {
            if (available < 10) break;
            length = 0;
            for (int i = 0; i < 8; i++) length = length << 8 | data[pos + 2 + i];
            header = 10;
        }
        if (length > MAX_MESSAGE) {
            b->lost = 1;
            b->close_code = 1009;
            break;
        }
        if (available - header < length) break; /* the rest of the frame is still on its way */
        const char *payload = b->in.data + pos + header;
        size_t n = (size_t)length;
        pos += header + n;
        if (opcode >= 0x8) {
            if (!fin || n > 125) {
                b->lost = 1;
                b->close_code = 1002;
                break;
            }
            if (opcode == 0x9) {
                ws_frame(&b->out, 0xA, payload, n); /* pong with the ping's payload */
            } else if (opcode == 0x8) {
                int code = n >= 2 ? ((uint8_t)payload[0] << 8 | (uint8_t)payload[1]) : 1005;
                size_t reason = n > 2 ? n - 2 : 0;
                if (reason >= sizeof b->close_reason) reason = sizeof b->close_reason - 1;
                if (reason) memcpy(b->close_reason, payload + 2, reason);
                b->close_reason[reason] = 0;
                b->close_code = code;
                b->closed_by_server = 1;
                uint8_t echo[2] = {(uint8_t)(code >> 8), (uint8_t)code};
                ws_frame(&b->out, 0x8, (const char *)echo, code == 1005 ? 0 : 2);
                b->lost = 1;
            } else if (opcode != 0xA) {
                b->lost = 1;
                b->close_code = 1002;
            }
            continue;
        }
        if (opcode == 0x0) {
            if (!b->in_fragmented || b->fragments.len + n > MAX_MESSAGE) {
                b->lost = 1;
                b->close_code = b->in_fragmented ? 1009 : 1002;
                break;
            }
            buf_append(&b->fragments, payload, n);
            if (fin) {
                b->in_fragmented = 0;
                if (b->fragmented_text) on_text(b, b->fragments.data, b->fragments.len);
                b->fragments.len = 0;
            }
        } else if (opcode == 0x1 || opcode == 0x2) {
            if (b->in_fragmented) {
                b->lost = 1;
                b->close_code = 1002;
                break;
            }
            if (fin) {
                if (opcode == 0x1) on_text(b, payload, n);
            } else {
                b->in_fragmented = 1;
                b->fragmented_text = opcode == 0x1;
                b->fragments.len = 0;
                buf_append(&b->fragments, payload, n);
            }
        } else {
            b->lost = 1;
            b->close_code = 1002;
        }
    }
    if (b->fd >= 0) buf_consume(&b->in, pos);
}

static void bot_handle_loss(bot_t *b, const char *why);

/* After reading: frames handled, the batch committed, replies written. A connection lost meanwhile (`why` from
 * the read, or a close or protocol error found in the frames) is dropped. */
static void bot_process_input(bot_t *b, const char *why) {
    ws_parse(b);
    batch_commit(b); /* what was read before a close or an error too: the store does not need the socket */
    if (b->lost && !b->closed_by_server && (b->close_code == 1002 || b->close_code == 1009)) {
        /* Our own close, for a protocol error or a message too big. */
        uint8_t code[2] = {(uint8_t)(b->close_code >> 8), (uint8_t)b->close_code};
        ws_frame(&b->out, 0x8, (const char *)code, 2);
    }
    bot_flush(b);
    if (why) b->lost = 1;
    if (b->lost) bot_handle_loss(b, why ? why : "protocol error");
}

static void bot_handle_loss(bot_t *b, const char *why) {
    int delay = RECONNECT_DELAY_MS;
    char reason[160];
    if (b->closed_by_server && b->close_code == 4002) {
        emit_error("%s: client key refused (4002), stopping", b->name);
        b->state = BOT_STOPPED;
    } else if (b->closed_by_server && b->close_code == 4003) {
        b->fresh_sign_in = 1;
    } else if (b->closed_by_server && b->close_code == 4008) {
        int seconds = atoi(b->close_reason);
        delay = (seconds < 1 ? 1 : seconds > 300 ? 300 : seconds) * 1000;
    }
    if (b->closed_by_server) snprintf(reason, sizeof reason, "closed by the server with %d %s", b->close_code, b->close_reason);
    else if (b->close_code) snprintf(reason, sizeof reason, "%s, closed with %d", why, b->close_code);
    else snprintf(reason, sizeof reason, "%s", why);
    bot_drop(b, reason, delay);
}

static void bot_on_readable(bot_t *b) {
    size_t taken = 0;
    const char *why = NULL;
    while (taken < MAX_READ_PER_WAKEUP) {
        buf_reserve(&b->in, 65536);
        size_t room = b->in.cap - b->in.len;
        ssize_t n = recv(b->fd, b->in.data + b->in.len, room, 0);
        if (n > 0) {
            b->in.len += (size_t)n;
            taken += (size_t)n;
            if ((size_t)n < room) break; /* drained: a short read */
        } else if (n == 0) {
            why = "closed by the server";
            break;
        } else if (errno == EINTR) {
            continue;
        } else {
            if (errno != EAGAIN && errno != EWOULDBLOCK) why = strerror(errno);
            break;
        }
    }
    bot_process_input(b, why);
}

/* Timers of one bot: reconnect, the ready/sync deadline, heartbeats. Returns its next deadline (0: none). */
static int64_t bot_timers(bot_t *b, int64_t now) {
    switch (b->state) {
    case BOT_RECONNECT_WAIT:
        if (now < b->reconnect_at) return b->reconnect_at;
        bot_connect(b); /* schedules its own next deadline */
        return 0;
    case BOT_WAIT_READY:
    case BOT_WAIT_SYNC:
    case BOT_LIVE: {
        if (b->deadline && now >= b->deadline) {
            bot_drop(b, b->state == BOT_WAIT_READY ? "no session.ready within 10 s" : "no sync.response within 30 s",
                     RECONNECT_DELAY_MS);
            return b->reconnect_at;
        }
        if (b->pong_due && now >= b->pong_due) {
            bot_drop(b, "no pong within 10 s", RECONNECT_DELAY_MS);
            return b->reconnect_at;
        }
        if (b->state != BOT_WAIT_READY && now >= b->next_ping) {
            scratch.len = 0;
            buf_printf(&scratch, "{\"id\":\"p%llu\",\"type\":\"ping\",\"data\":{}}", (unsigned long long)++b->request_number);
            ws_text(&b->out, &scratch);
            bot_flush(b);
            if (b->lost) {
                bot_handle_loss(b, "write failed");
                return b->state == BOT_RECONNECT_WAIT ? b->reconnect_at : 0;
            }
            if (!b->pong_due) b->pong_due = now + PONG_TIMEOUT_MS;
            b->next_ping = now + b->heartbeat_ms;
        }
        int64_t next = b->state == BOT_WAIT_READY ? 0 : b->next_ping;
        if (b->deadline && (!next || b->deadline < next)) next = b->deadline;
        if (b->pong_due && (!next || b->pong_due < next)) next = b->pong_due;
        return next;
    }
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------------------------------------------------------
 * The process: configuration, commands, the loop
 * ------------------------------------------------------------------------------------------------------------ */

static int load_configuration(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        emit_error("c floor: cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    buf_t text = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0 && text.len < (64u << 20)) buf_append(&text, chunk, n);
    fclose(file);
    span_t root = {text.data, text.len}, value, list, entry;
    char *api = NULL, *ws = NULL;
    int result = -1;
    if (json_member(root, "apiURL", &value) == 0) api = json_strdup(value);
    if (json_member(root, "webSocketURL", &value) == 0) ws = json_strdup(value);
    if (json_member(root, "clientKey", &value) == 0) config.client_key = json_strdup(value);
    if (json_member(root, "dataDirectory", &value) == 0) config.data_directory = json_strdup(value);
    if (!api || !ws || !config.client_key || !config.data_directory || json_member(root, "bots", &list) < 0) {
        emit_error("c floor: %s lacks apiURL, webSocketURL, clientKey, dataDirectory or bots", path);
        goto done;
    }
    if (endpoint_parse(&config.api, api, "http") < 0 || endpoint_parse(&config.ws, ws, "ws") < 0) goto done;
    json_iter_t it;
    if (json_iter_init(&it, list) < 0 || it.object) goto done;
    int r;
    while ((r = json_iter_next(&it, NULL, &entry)) == 1) {
        char *name = json_member(entry, "name", &value) == 0 ? json_strdup(value) : NULL;
        char *username = json_member(entry, "username", &value) == 0 ? json_strdup(value) : NULL;
        char *password = json_member(entry, "password", &value) == 0 ? json_strdup(value) : NULL;
        if (!name || !*name || strchr(name, '/') || !username || !password) {
            emit_error("c floor: bot %zu lacks a name (without '/'), username or password; left out", bot_count);
            free(name);
            free(username);
            free(password);
            continue;
        }
        bots = xrealloc(bots, (bot_count + 1) * sizeof *bots);
        bot_t *b = &bots[bot_count];
        memset(b, 0, sizeof *b);
        b->index = (int)bot_count++;
        b->name = name;
        b->username = username;
        b->password = password;
        b->fd = -1;
        b->state = BOT_WAITING_TO_START;
        b->heartbeat_ms = 25000;
    }
    result = r < 0 ? -1 : 0;
    if (result < 0) emit_error("c floor: %s: malformed bots array", path);
done:
    free(api);
    free(ws);
    buf_free(&text);
    return result;
}

static buf_t stdin_buffer;
static int started, stopping;

static void on_command(const char *line, size_t n) {
    while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ')) n--;
    if (n == 0) return;
    if (n == 5 && memcmp(line, "start", 5) == 0) {
        started = 1;
    } else if (n == 5 && memcmp(line, "acked", 5) == 0) {
        char text[64];
        int len = snprintf(text, sizeof text, "{\"event\":\"acked\",\"total\":%llu}\n", (unsigned long long)acked_total);
        emit_line(text, (size_t)len);
    } else {
        emit_error("unknown command %.*s", (int)(n > 64 ? 64 : n), line);
    }
}

static void on_stdin(void) {
    for (;;) {
        buf_reserve(&stdin_buffer, 4096);
        ssize_t n = read(STDIN_FILENO, stdin_buffer.data + stdin_buffer.len, stdin_buffer.cap - stdin_buffer.len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n <= 0) {
            stopping = 1; /* end of input: stop gracefully */
            break;
        }
        stdin_buffer.len += (size_t)n;
        size_t start = 0;
        for (size_t i = stdin_buffer.len - (size_t)n; i < stdin_buffer.len; i++) {
            if (stdin_buffer.data[i] == '\n') {
                on_command(stdin_buffer.data + start, i - start);
                start = i + 1;
            }
        }
        buf_consume(&stdin_buffer, start);
        if (stdin_buffer.len > 65536) stdin_buffer.len = 0; /* a line that long is no command */
    }
}

/* Every socket closed with 1000 (best effort), every store closed. */
static void stop_all(void) {
    for (size_t i = 0; i < bot_count; i++) {
        bot_t *b = &bots[i];
        b->state = BOT_STOPPED;
        if (b->fd >= 0) {
            static const uint8_t normal[2] = {0x03, 0xE8};
            ws_frame(&b->out, 0x8, (const char *)normal, 2);
            bot_flush(b);
            shutdown(b->fd, SHUT_WR);
            close(b->fd);
            b->fd = -1;
        }
        store_close(b);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <configuration.json>\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
    }
    rng_seed();
    if (load_configuration(argv[1]) < 0) return 1;
    if (mkdir(config.data_directory, 0700) < 0 && errno != EEXIST) {
        emit_error("c floor: cannot create %s: %s", config.data_directory, strerror(errno));
        return 1;
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    int flags = fcntl(STDIN_FILENO, F_GETFL);
    struct epoll_event stdin_event = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_fd < 0 || flags < 0 || fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK) < 0 ||
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, STDIN_FILENO, &stdin_event) < 0) {
        emit_error("c floor: cannot set up epoll: %s", strerror(errno));
        return 1;
    }
    static const char boot[] = "{\"event\":\"boot\"}\n";
    emit_line(boot, sizeof boot - 1);

    size_t next_start = 0; /* bots start one per turn of the loop, so that the others are served meanwhile */
    struct epoll_event events[256];
    while (!stopping) {
        int64_t now = now_ms();
        int starting = started && next_start < bot_count;
        int timeout = starting ? 0 : next_scan > now ? (int)(next_scan - now) : 0;
        int count = epoll_wait(epoll_fd, events, 256, timeout);
        if (count < 0 && errno != EINTR) {
            emit_error("c floor: epoll_wait: %s", strerror(errno));
            break;
        }
        for (int i = 0; i < count; i++) {
            bot_t *b = events[i].data.ptr;
            if (!b) {
                on_stdin();
                continue;
            }
            if (b->fd < 0) continue;
            if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) bot_on_readable(b);
            if (b->fd >= 0 && (events[i].events & EPOLLOUT)) {
                bot_flush(b);
                if (b->lost) bot_handle_loss(b, "write failed");
            }
        }
        if (stopping) break;
        if (starting) {
            bot_t *b = &bots[next_start++];
            if (store_open(b) < 0) {
                store_close(b);
                b->state = BOT_STOPPED; /* this bot's store is unusable; the others go on */
            } else {
                bot_connect(b);
            }
        }
        now = now_ms();
        if (now >= next_scan) {
            /* At most once a second when nothing is due sooner (idle bots wake the process rarely). */
            int64_t next = now + 1000;
            for (size_t i = 0; i < bot_count; i++) {
                int64_t due = bot_timers(&bots[i], now);
                if (due && due < next) next = due;
            }
            next_scan = next > now ? next : now + 1;
        }
    }
    stop_all();
    return 0;
}
