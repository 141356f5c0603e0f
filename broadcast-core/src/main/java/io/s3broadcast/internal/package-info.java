/**
 * Implementation, not API: may change in any release. The flat-tree fetch, settings resolution,
 * destination checks, the resumable temporary file and its piece journal, and the end-to-end verification
 * computed as pieces land.
 */
package io.s3broadcast.internal;
