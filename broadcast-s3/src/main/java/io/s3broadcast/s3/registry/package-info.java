/**
 * The S3-prefix registry ({@code s3://bucket/prefix}): each node writes one small object
 * {@code <prefix>/<group hash>/<node id>} and lists the prefix to find the others. Nothing to run beside
 * S3, which suits an EC2 fleet. Found by {@link io.s3broadcast.registry.NodeRegistry#open} through
 * {@link io.s3broadcast.s3.registry.S3PrefixRegistry.Provider}.
 */
package io.s3broadcast.s3.registry;
