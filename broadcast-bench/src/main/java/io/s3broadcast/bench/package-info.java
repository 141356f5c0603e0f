/**
 * The benchmark and demo runner: a picocli command line ({@link io.s3broadcast.bench.BenchCli}) that times
 * {@code Broadcast} against the AWS SDK's Transfer Manager and a plain {@code GetObject}, on an S3Proxy server
 * started in the same JVM or on an existing endpoint. See {@code docs/bench.md}.
 */
package io.s3broadcast.bench;
