/**
 * Micrometer meters for fetches, bound by a {@link io.s3broadcast.Broadcast} when Micrometer is on the class path:
 * {@link io.s3broadcast.metrics.BroadcastMetrics}.
 */
package io.s3broadcast.metrics;
