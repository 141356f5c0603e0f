package io.s3broadcast.testkit.proxy;

/** The head of one HTTP response from upstream. */
record ResponseHead(String version, int status, String reason, Headers headers) {
  boolean isInterim() {
    return status >= 100 && status < 200;
  }
}
