/*
 * libFuzzer target `echo-floor`: the C floor's input side (bench/c_floor/echo_floor.c), which reads what the
 * server sends with bounds-checked parsers of its own: the WebSocket frame parser, the JSON field extraction of
 * every frame type it handles, and the HTTP response helpers of its REST client.
 *
 * Input: a control byte, then bytes.
 *   bit 0 = 0: the bytes are what the socket delivered (server frames), read in two parts split at
 *              (control >> 1) / 127 of their length, as two wake-ups would read them;
 *   bit 0 = 1: the bytes are one text message (a frame's JSON), and the head of an HTTP response.
 * Properties besides no crash, no leak and no undefined behaviour: a batch holds only messages with an id, a
 * conversation, a positive seq and a sender, and acks with both ids.
 *
 * The bot is live (so no frame leads to a REST call or a store: nothing is committed here).
 */
#define main echo_floor_main
#include "../bench/c_floor/echo_floor.c"
#undef main

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    /* The floor reports bad input as error events on stdout: keep them out of libFuzzer's output. */
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    return 0;
}

static void check_batch(const bot_t *b) {
    for (size_t i = 0; i < b->message_count; i++) {
        const batch_message_t *m = &b->messages[i];
        if (m->id.len == 0 || m->conversation.len == 0 || m->sender.len == 0 || m->seq <= 0) __builtin_trap();
    }
    for (size_t i = 0; i < b->ack_count; i++) {
        const batch_ack_t *a = &b->acks[i];
        if (a->client_message_id.len == 0 || a->message_id.len == 0) __builtin_trap();
    }
}

static void free_bot(bot_t *b) {
    buf_free(&b->in);
    buf_free(&b->out);
    buf_free(&b->fragments);
    buf_free(&b->arena);
    buf_free(&b->replies);
    free(b->messages);
    free(b->acks);
    free(b->touched);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint8_t control = data[0];
    const char *bytes = (const char *)data + 1;
    size_t n = size - 1;
    bot_t b;
    memset(&b, 0, sizeof b);
    b.name = "fuzz";
    b.fd = 0; /* a connection, never written to: frames out only go to b.out */
    b.state = BOT_LIVE;
    if ((control & 1) == 0) {
        size_t split = n * (control >> 1) / 127;
        if (split > n) split = n;
        const char *parts[2] = {bytes, bytes + split};
        size_t lengths[2] = {split, n - split};
        for (int i = 0; i < 2 && !b.lost; i++) {
            buf_append(&b.in, parts[i], lengths[i]);
            ws_parse(&b);
            check_batch(&b);
        }
    } else {
        on_text(&b, bytes, n);
        check_batch(&b);
        span_t value;
        http_status(bytes, bytes + n);
        http_header(bytes, bytes + n, "Content-Length", &value);
        http_header(bytes, bytes + n, "Sec-WebSocket-Accept", &value);
    }
    free_bot(&b);
    return 0;
}
