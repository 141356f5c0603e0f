/**
 * A fault-injecting, bandwidth-limiting TCP proxy for plain HTTP/1.1, to put between an S3 client
 * and a real S3 server in tests: {@link io.s3broadcast.testkit.proxy.FaultProxy} forwards bytes
 * unchanged and, for requests chosen by a {@link io.s3broadcast.testkit.proxy.Rule}, injects a
 * {@link io.s3broadcast.testkit.proxy.Fault}: an S3 error response, a reset or truncated
 * connection, or a stall part-way through the response body.
 */
package io.s3broadcast.testkit.proxy;
