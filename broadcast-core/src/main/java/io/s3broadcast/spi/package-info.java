/**
 * What the modules plug into: an {@link io.s3broadcast.spi.ObjectSource} reads pieces of an object (the S3
 * one lives in {@code broadcast-s3}) into a {@link io.s3broadcast.spi.PieceStore}, the temporary file that
 * becomes the object at its destination. {@link io.s3broadcast.spi.PieceLayout} cuts an object into
 * pieces, {@link io.s3broadcast.spi.Bitfield} says which are present, and a
 * {@link io.s3broadcast.spi.PieceQueue} hands out the runs of pieces a node is to fetch.
 */
package io.s3broadcast.spi;
