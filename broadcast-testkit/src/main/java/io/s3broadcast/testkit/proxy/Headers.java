package io.s3broadcast.testkit.proxy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Header fields of one message, in wire order, looked up case-insensitively. */
final class Headers {
  private final List<String> names;
  private final List<String> values;

  Headers(List<String> names, List<String> values) {
    this.names = List.copyOf(names);
    this.values = List.copyOf(values);
  }

  Optional<String> first(String name) {
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equalsIgnoreCase(name)) {
        return Optional.of(values.get(i));
      }
    }
    return Optional.empty();
  }

  List<String> all(String name) {
    List<String> found = new ArrayList<>(2);
    for (int i = 0; i < names.size(); i++) {
      if (names.get(i).equalsIgnoreCase(name)) {
        found.add(values.get(i));
      }
    }
    return found;
  }

  /** The comma-separated tokens of every field called {@code name}, trimmed and lower-cased. */
  List<String> tokens(String name) {
    List<String> tokens = new ArrayList<>(2);
    for (String value : all(name)) {
      for (String token : value.split(",")) {
        String t = token.trim();
        if (!t.isEmpty()) {
          tokens.add(t.toLowerCase(Locale.ROOT));
        }
      }
    }
    return tokens;
  }

  int size() {
    return names.size();
  }
}
