/**
 * Real S3 servers for tests and demos, without Docker by default.
 *
 * <p>{@link io.s3broadcast.testkit.S3Server} is a running server; {@link
 * io.s3broadcast.testkit.S3Backend} picks one of {@link io.s3broadcast.testkit.S3ProxyServer} (in-JVM,
 * default), {@link io.s3broadcast.testkit.HostLocalStackServer} (LocalStack from a Python venv), {@link
 * io.s3broadcast.testkit.TestcontainersLocalStackServer} (LocalStack in Docker) or {@link
 * io.s3broadcast.testkit.ExternalS3Server} (e.g. AWS) from {@code -Ds3broadcast.test.backend}. Tests
 * annotated {@link io.s3broadcast.testkit.RealS3} get an {@link io.s3broadcast.testkit.S3Fixture} per
 * test: a fresh bucket, clients, and streaming upload helpers over {@link
 * io.s3broadcast.testkit.SeededData}.
 */
package io.s3broadcast.testkit;
