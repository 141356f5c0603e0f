/**
 * The S3-prefix registry ({@code s3://bucket/prefix}): a group's members, each with a lease, live in a few small
 * manifest objects {@code <prefix>/<group hash>/members-<i>} that nodes update with conditional writes and read
 * once per poll with a conditional GET. Nothing to run beside S3, which suits an EC2 fleet. Found by
 * {@link io.s3broadcast.registry.NodeRegistry#open} through {@link io.s3broadcast.s3.registry.S3PrefixRegistry.Provider}.
 */
package io.s3broadcast.s3.registry;
