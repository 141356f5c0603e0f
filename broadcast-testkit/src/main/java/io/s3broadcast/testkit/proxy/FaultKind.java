package io.s3broadcast.testkit.proxy;

/** The kinds of fault a {@link FaultProxy} injects, as counted in {@link ProxyStats}. */
public enum FaultKind {
  /** An HTTP error response made by the proxy; the request never reaches upstream. */
  STATUS,
  /** The client connection is reset (TCP RST) part-way through the response body. */
  RESET,
  /** The client connection is closed cleanly (FIN) part-way through the response body. */
  TRUNCATE,
  /** The response body stops flowing for a while, with the connection left open. */
  STALL
}
