/*
 * The yardstick for pushgate's curl engine: libcurl alone, from C, sending COUNT alert
 * pushes to an APNs-shaped server over one HTTP/2 connection with up to STREAMS at once,
 * a new easy handle per push and nothing else. What it reaches is what libcurl itself
 * allows on this machine; the engine can only add to its cost.
 *
 *   bare-libcurl BASE_URL COUNT STREAMS BEARER CA_FILE
 *
 * Prints "<pushes answered 200> <pushes per second>".
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s BASE_URL COUNT STREAMS BEARER CA_FILE\n", argv[0]);
        return 2;
    }
    const char *base = argv[1];
    int total = atoi(argv[2]);
    int streams = atoi(argv[3]);
    if (total < 1 || streams < 1) {
        fprintf(stderr, "COUNT and STREAMS must be at least 1\n");
        return 2;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);

    char authorization[2048];
    snprintf(authorization, sizeof authorization, "authorization: bearer %s", argv[4]);
    struct curl_slist *headers = curl_slist_append(NULL, authorization);
    headers = curl_slist_append(headers, "apns-topic: com.example.pushgate");
    headers = curl_slist_append(headers, "apns-push-type: alert");
    headers = curl_slist_append(headers, "content-type: application/json");

    int started = 0, finished = 0, delivered = 0, running = 0;
    struct timespec begin, end;
    clock_gettime(CLOCK_MONOTONIC, &begin);
    while (finished < total) {
        while (started < total && started - finished < streams) {
            char url[512];
            snprintf(url, sizeof url, "%s/3/device/%064x", base, started);
            CURL *easy = curl_easy_init();
            curl_easy_setopt(easy, CURLOPT_URL, url);
            curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
            curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
            curl_easy_setopt(easy, CURLOPT_CAINFO, argv[5]);
            curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
            curl_easy_setopt(easy, CURLOPT_POSTFIELDS, "{\"aps\":{\"alert\":\"bench\"}}");
            curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
            curl_multi_add_handle(multi, easy);
            started++;
        }
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status == 200) delivered++;
            curl_multi_remove_handle(multi, message->easy_handle);
            curl_easy_cleanup(message->easy_handle);
            finished++;
        }
        curl_multi_poll(multi, NULL, 0, 100, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (double)(end.tv_sec - begin.tv_sec) + (double)(end.tv_nsec - begin.tv_nsec) / 1e9;
    printf("%d %.0f\n", delivered, total / seconds);
    curl_slist_free_all(headers);
    curl_multi_cleanup(multi);
    curl_global_cleanup();
    return 0;
}
