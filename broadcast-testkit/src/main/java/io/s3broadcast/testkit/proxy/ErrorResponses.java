package io.s3broadcast.testkit.proxy;

import java.nio.charset.StandardCharsets;

/** The proxy's own S3-style error responses for {@link FaultKind#STATUS} faults. */
final class ErrorResponses {
  private ErrorResponses() {}

  static byte[] build(Fault fault, RequestHead request, boolean close, long requestId) {
    String id = String.format("FAULTPROXY%08X", requestId);
    byte[] body =
        ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>"
                + xml(fault.errorCode())
                + "</Code><Message>"
                + xml(fault.message())
                + "</Message><Resource>"
                + xml(request.path())
                + "</Resource><RequestId>"
                + id
                + "</RequestId></Error>")
            .getBytes(StandardCharsets.UTF_8);
    boolean head = request.method().equals("HEAD");
    StringBuilder s = new StringBuilder(256);
    s.append("HTTP/1.1 ").append(fault.status()).append(' ').append(reason(fault.status())).append("\r\n");
    s.append("Content-Type: application/xml\r\n");
    s.append("Content-Length: ").append(head ? 0 : body.length).append("\r\n");
    s.append("x-amz-request-id: ").append(id).append("\r\n");
    s.append("x-amz-id-2: fault-proxy\r\n");
    if (close) {
      s.append("Connection: close\r\n");
    }
    s.append("\r\n");
    byte[] start = s.toString().getBytes(StandardCharsets.ISO_8859_1);
    if (head) {
      return start;
    }
    byte[] all = new byte[start.length + body.length];
    System.arraycopy(start, 0, all, 0, start.length);
    System.arraycopy(body, 0, all, start.length, body.length);
    return all;
  }

  static String reason(int status) {
    switch (status) {
      case 400:
        return "Bad Request";
      case 403:
        return "Forbidden";
      case 404:
        return "Not Found";
      case 408:
        return "Request Timeout";
      case 429:
        return "Too Many Requests";
      case 500:
        return "Internal Server Error";
      case 502:
        return "Bad Gateway";
      case 503:
        return "Slow Down";
      case 504:
        return "Gateway Timeout";
      default:
        return status < 400 ? "OK" : "Error";
    }
  }

  private static String xml(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
