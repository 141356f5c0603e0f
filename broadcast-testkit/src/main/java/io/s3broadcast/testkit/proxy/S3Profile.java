package io.s3broadcast.testkit.proxy;

import java.util.Locale;
import java.util.Objects;
import java.util.Random;

/**
 * How S3 answers, as a {@link FaultProxy} emulates it: each response body to a GET draws its own rate from {@link
 * #rates()} and waits a first-byte latency drawn from {@link #firstByte()} before its head is sent; each connection
 * is limited to {@link #perConnectionCap()} and all connections together (the hot object) to {@link
 * #aggregateCap()}. A cap of {@link FaultProxy#UNLIMITED} (0) means none; {@code rates} null means no per-request
 * limit.
 *
 * <p>Specs as {@link #parse} reads them: a name ({@code paper}, {@code unlimited}) or a {@link RateDistribution}
 * spec, then optional {@code ;key=value} settings that override it:
 *
 * <pre>
 * paper
 * paper;aggregate=40MB
 * lognormal:6MB,0.4;latency=lognormal:30ms,0.5;connection=20MB;aggregate=100MB
 * fixed:10MB;latency=0
 * </pre>
 *
 * @param name how reports call it
 * @param rates per-request rate distribution, or null for none
 * @param firstByte per-request first-byte latency
 * @param perConnectionCap bytes per second of each connection, or 0
 * @param aggregateCap bytes per second of all connections together, or 0
 */
public record S3Profile(
    String name, RateDistribution rates, Latency firstByte, long perConnectionCap, long aggregateCap) {

  public S3Profile {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(firstByte, "firstByte");
    if (perConnectionCap < 0 || aggregateCap < 0) {
      throw new IllegalArgumentException("caps must not be negative");
    }
  }

  /**
   * Paper 000 Fig. 1 and 3: {@link RateDistribution#paper()} per request, first byte after a log-normal latency of
   * median 30 ms (sigma 0.5), no per-connection or aggregate cap (add {@code ;aggregate=RATE} for a hot object).
   */
  public static S3Profile paper() {
    return new S3Profile("paper", RateDistribution.paper(), Latency.lognormal(30_000_000L, 0.5), 0, 0);
  }

  /** No limits and no latency: the server as fast as it is. */
  public static S3Profile unlimited() {
    return new S3Profile("unlimited", null, Latency.NONE, 0, 0);
  }

  /** Reads a spec (see the class comment). */
  public static S3Profile parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    String[] parts = spec.trim().split(";");
    String base = parts[0].trim();
    S3Profile p = switch (base.toLowerCase(Locale.ROOT)) {
      case "paper" -> paper();
      case "unlimited", "none" -> unlimited();
      default -> new S3Profile(base, RateDistribution.parse(base), Latency.NONE, 0, 0);
    };
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i].trim();
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      if (eq < 0) {
        throw new IllegalArgumentException("'" + part + "' in S3 profile '" + spec + "' is not key=value");
      }
      String key = part.substring(0, eq).trim().toLowerCase(Locale.ROOT);
      String value = part.substring(eq + 1).trim();
      p = switch (key) {
        case "latency" -> p.withFirstByte(Latency.parse(value));
        case "connection" -> p.withPerConnectionCap(capOf(value));
        case "aggregate" -> p.withAggregateCap(capOf(value));
        default -> throw new IllegalArgumentException("unknown setting '" + key + "' in S3 profile '" + spec
            + "': use latency=, connection= or aggregate=");
      };
    }
    return p.withName(spec.trim());
  }

  private static long capOf(String value) {
    return value.equalsIgnoreCase("none") || value.equalsIgnoreCase("unlimited") ? 0 : Rates.parseRate(value);
  }

  public S3Profile withName(String n) {
    return new S3Profile(n, rates, firstByte, perConnectionCap, aggregateCap);
  }

  public S3Profile withRates(RateDistribution r) {
    return new S3Profile(name, r, firstByte, perConnectionCap, aggregateCap);
  }

  public S3Profile withFirstByte(Latency l) {
    return new S3Profile(name, rates, l, perConnectionCap, aggregateCap);
  }

  public S3Profile withPerConnectionCap(long bytesPerSecond) {
    return new S3Profile(name, rates, firstByte, bytesPerSecond, aggregateCap);
  }

  public S3Profile withAggregateCap(long bytesPerSecond) {
    return new S3Profile(name, rates, firstByte, perConnectionCap, bytesPerSecond);
  }

  /**
   * The rate one request gets on average: the distribution's mean, bounded by the per-connection cap; 0 when
   * unlimited.
   */
  public double meanRequestRate() {
    double r = rates == null ? 0 : rates.mean();
    if (perConnectionCap > 0) {
      r = r == 0 ? perConnectionCap : Math.min(r, perConnectionCap);
    }
    return r;
  }

  /** One line for reports: {@code paper: bimodal:4.5MB,10MB,0.3,0.2, first byte lognormal:30ms,0.5, ...}. */
  public String describe() {
    return name + ": rates " + (rates == null ? "unlimited" : rates.spec()) + ", first byte " + firstByte.spec()
        + ", per connection " + Rates.formatRate(perConnectionCap) + ", aggregate " + Rates.formatRate(aggregateCap);
  }

  /** A first-byte latency distribution: {@code 0}, {@code 30ms}, or {@code lognormal:30ms,0.5}. */
  public record Latency(long medianNanos, double sigma) {
    /** No latency. */
    public static final Latency NONE = new Latency(0, 0);

    public Latency {
      if (medianNanos < 0 || !(sigma >= 0 && sigma <= 3)) {
        throw new IllegalArgumentException("latency median must not be negative and sigma in [0, 3]");
      }
    }

    public static Latency fixed(long nanos) {
      return new Latency(nanos, 0);
    }

    public static Latency lognormal(long medianNanos, double sigma) {
      return new Latency(medianNanos, sigma);
    }

    public static Latency parse(String spec) {
      String s = spec.trim();
      if (s.toLowerCase(Locale.ROOT).startsWith("lognormal:")) {
        String[] args = s.substring("lognormal:".length()).split(",");
        if (args.length != 2) {
          throw new IllegalArgumentException("'" + spec + "' is not a latency: write lognormal:30ms,0.5");
        }
        return lognormal(Rates.parseNanos(args[0]), Double.parseDouble(args[1].trim()));
      }
      if (s.toLowerCase(Locale.ROOT).startsWith("fixed:")) {
        s = s.substring("fixed:".length());
      }
      return fixed(Rates.parseNanos(s));
    }

    /** One latency in nanoseconds. */
    public long draw(Random random) {
      if (medianNanos == 0) {
        return 0;
      }
      return sigma == 0 ? medianNanos : Math.round(medianNanos * Math.exp(sigma * random.nextGaussian()));
    }

    /** The mean in nanoseconds. */
    public double mean() {
      return medianNanos * Math.exp(sigma * sigma / 2);
    }

    public String spec() {
      return sigma == 0 ? Rates.formatNanos(medianNanos) : "lognormal:" + Rates.formatNanos(medianNanos) + "," + sigma;
    }
  }
}
