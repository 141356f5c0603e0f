/**
 * Implementation, not API: may change in any release. The flat-tree fetch, settings resolution,
 * destination checks and read-back verification.
 */
package io.s3broadcast.internal;
