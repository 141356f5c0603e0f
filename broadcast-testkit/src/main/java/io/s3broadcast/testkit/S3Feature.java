package io.s3broadcast.testkit;

/**
 * Behaviour of real S3 that not every test backend has. Tests that depend on one call {@link
 * S3Fixture#assumeSupports(S3Feature)} so they are skipped, with the reason, where it is missing.
 */
public enum S3Feature {
  /** Each fixture gets a fresh bucket of its own (otherwise: a unique key prefix in a fixed bucket). */
  CREATE_BUCKET,
  /** {@code GET} with {@code If-Match} answers 412 Precondition Failed when the ETag differs. */
  IF_MATCH_ON_GET,
  /** {@code GET ?partNumber=N} returns one part of a multipart object. */
  PART_NUMBER_GET,
  /** {@code GET}/{@code HEAD} with checksum mode enabled return the stored object checksum headers. */
  GET_CHECKSUMS,
  /** Requests signed with credentials the server does not know are refused (LocalStack accepts any). */
  REJECTS_UNKNOWN_CREDENTIALS,
}
