#ifndef PUSHGATE_CCURL_SHIM_H
#define PUSHGATE_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_multi_setopt are variadic: Swift calls these typed forms.
static inline CURLcode pushgate_curl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushgate_curl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushgate_curl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushgate_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushgate_curl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode pushgate_curl_easy_setopt_blob(CURL *handle, CURLoption option, struct curl_blob *value) {
    return curl_easy_setopt(handle, option, value);
}
/// WRITEFUNCTION and HEADERFUNCTION share this callback type.
static inline CURLcode pushgate_curl_easy_setopt_write_callback(CURL *handle, CURLoption option,
                                                                curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}
/// CURLOPT_PREREQFUNCTION: called once the connection is up, right before the request goes out.
static inline CURLcode pushgate_curl_easy_setopt_prereq_callback(CURL *handle, curl_prereq_callback value) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, value);
}
/// CURLOPT_OPENSOCKETFUNCTION: called with each address libcurl is about to connect to, before
/// the socket exists; returning CURL_SOCKET_BAD means no connection attempt is made to it.
static inline CURLcode pushgate_curl_easy_setopt_opensocket_callback(CURL *handle, curl_opensocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}
static inline CURLMcode pushgate_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
static inline CURLcode pushgate_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode pushgate_curl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode pushgate_curl_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) {
    return curl_easy_getinfo(handle, info, value);
}

// Macros Swift cannot import.
static inline long pushgate_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline long pushgate_curlpipe_multiplex(void) { return CURLPIPE_MULTIPLEX; }
static inline unsigned int pushgate_curl_blob_copy(void) { return CURL_BLOB_COPY; }
/// CURLMsg.data is a union; Swift reads the transfer's result through this.
static inline CURLcode pushgate_curl_msg_result(const CURLMsg *message) { return message->data.result; }
#endif
