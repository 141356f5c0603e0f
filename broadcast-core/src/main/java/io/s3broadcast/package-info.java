/**
 * The public API: {@link io.s3broadcast.Broadcast} puts an S3 object on local disk, verified, and on every
 * node of a cluster that asks for it. A {@link io.s3broadcast.FetchRequest} goes in, a
 * {@link io.s3broadcast.FetchHandle} comes back, and its future completes with a
 * {@link io.s3broadcast.CompletedFetch} or a {@link io.s3broadcast.BroadcastException}.
 */
package io.s3broadcast;
