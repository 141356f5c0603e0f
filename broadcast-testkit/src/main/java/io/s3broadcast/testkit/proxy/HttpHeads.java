package io.s3broadcast.testkit.proxy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Parses raw message heads read by {@link HttpInput#readHead}. */
final class HttpHeads {
  private HttpHeads() {}

  static RequestHead parseRequest(byte[] raw) throws HttpProtocolException {
    List<String> lines = lines(raw);
    String[] start = lines.get(0).split(" ", -1);
    if (start.length != 3 || start[0].isEmpty() || start[1].isEmpty() || !start[2].startsWith("HTTP/1.")) {
      throw new HttpProtocolException("bad request line: " + printable(lines.get(0)));
    }
    return new RequestHead(start[0], start[1], start[2], fields(lines));
  }

  static ResponseHead parseResponse(byte[] raw) throws HttpProtocolException {
    List<String> lines = lines(raw);
    String line = lines.get(0);
    int sp1 = line.indexOf(' ');
    if (sp1 < 0 || !line.startsWith("HTTP/1.") || line.length() < sp1 + 4) {
      throw new HttpProtocolException("bad status line: " + printable(line));
    }
    int status;
    try {
      status = Integer.parseInt(line.substring(sp1 + 1, sp1 + 4));
    } catch (NumberFormatException e) {
      throw new HttpProtocolException("bad status line: " + printable(line));
    }
    if (status < 100 || status > 999 || (line.length() > sp1 + 4 && line.charAt(sp1 + 4) != ' ')) {
      throw new HttpProtocolException("bad status line: " + printable(line));
    }
    String reason = line.length() > sp1 + 5 ? line.substring(sp1 + 5) : "";
    return new ResponseHead(line.substring(0, sp1), status, reason, fields(lines));
  }

  private static List<String> lines(byte[] raw) throws HttpProtocolException {
    String text = new String(raw, StandardCharsets.ISO_8859_1);
    List<String> lines = new ArrayList<>();
    int from = 0;
    while (from < text.length()) {
      int lf = text.indexOf('\n', from);
      if (lf < 0) {
        throw new HttpProtocolException("HTTP head without final empty line");
      }
      int end = lf > from && text.charAt(lf - 1) == '\r' ? lf - 1 : lf;
      String line = text.substring(from, end);
      from = lf + 1;
      if (line.isEmpty()) {
        break;
      }
      lines.add(line);
    }
    if (lines.isEmpty()) {
      throw new HttpProtocolException("empty HTTP head");
    }
    return lines;
  }

  private static Headers fields(List<String> lines) throws HttpProtocolException {
    List<String> names = new ArrayList<>(lines.size());
    List<String> values = new ArrayList<>(lines.size());
    for (int i = 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.charAt(0) == ' ' || line.charAt(0) == '\t') {
        throw new HttpProtocolException("obsolete header line folding");
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || line.charAt(colon - 1) == ' ' || line.charAt(colon - 1) == '\t') {
        throw new HttpProtocolException("bad header line: " + printable(line));
      }
      names.add(line.substring(0, colon));
      values.add(line.substring(colon + 1).strip());
    }
    return new Headers(names, values);
  }

  private static String printable(String s) {
    String cut = s.length() > 200 ? s.substring(0, 200) + "..." : s;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }
}
