package io.s3broadcast.testkit.proxy;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;

/**
 * Where the rate of one S3 response comes from: every response body the proxy serves under an {@link S3Profile}
 * draws its own bytes-per-second from this distribution, so a fleet sees what S3 clients see in the cloud — most
 * requests slow, some fast, a fresh draw each time.
 *
 * <p>Specs, as {@link #parse} reads them (rates in {@code MB} are 10^6 bytes/s, as in the paper):
 *
 * <ul>
 *   <li>{@code paper}: the bimodal rates of paper 000, Fig. 1 and 3 ({@link #paper()});
 *   <li>{@code fixed:10MB}: every request at 10 MB/s;
 *   <li>{@code lognormal:6MB,0.4}: log-normal with median 6 MB/s and sigma 0.4 (of the natural log);
 *   <li>{@code bimodal:4.5MB,10MB,0.3[,0.2]}: slow mode median 4.5 MB/s, fast mode median 10 MB/s, a fast request
 *       with probability 0.3, each mode log-normal with sigma 0.2 (default);
 *   <li>{@code empirical:3MB,4MB,9MB,...}: one of the listed rates, uniformly (measured rates pasted in).
 * </ul>
 *
 * Draws are clamped to at least 1 kB/s. Implementations are immutable; the caller owns the {@link Random}.
 */
public interface RateDistribution {
  /** The smallest rate a draw returns, so that no request waits forever. */
  long MIN_RATE = 1_000;

  /** One rate in bytes per second. */
  long draw(Random random);

  /** The mean rate in bytes per second (for the fluid bound and calibration). */
  double mean();

  /** The spec this distribution parses from, e.g. {@code lognormal:6MB,0.4}. */
  String spec();

  /** Every request at {@code bytesPerSecond}. */
  static RateDistribution fixed(long bytesPerSecond) {
    if (bytesPerSecond < MIN_RATE) {
      throw new IllegalArgumentException("a fixed rate must be at least " + MIN_RATE + " bytes/s: " + bytesPerSecond);
    }
    return new Fixed(bytesPerSecond);
  }

  /** Log-normal: {@code median * exp(sigma * N(0,1))}. */
  static RateDistribution lognormal(long median, double sigma) {
    return new LogNormal(median, sigma);
  }

  /** A fast mode with probability {@code pFast}, else a slow one; each log-normal with {@code sigma}. */
  static RateDistribution bimodal(long slowMedian, long fastMedian, double pFast, double sigma) {
    return new Bimodal(new LogNormal(slowMedian, sigma), new LogNormal(fastMedian, sigma), pFast);
  }

  /** One of {@code rates}, each equally likely. */
  static RateDistribution empirical(long... rates) {
    return new Empirical(rates.clone());
  }

  /**
   * Paper 000, Fig. 1 and 3 (1,000 downloads from S3 to one EC2 node, and the flat tree on 8-32 nodes): about 60% of
   * downloads at or below 6 MB/s, about 30% at 8 MB/s or more, the slowest near 4 MB/s and the fastest above 10 MB/s.
   * Here: 70% slow (median 4.5 MB/s) and 30% fast (median 10 MB/s), each log-normal with sigma 0.2.
   */
  static RateDistribution paper() {
    return new Named("paper", bimodal(4_500_000, 10_000_000, 0.3, 0.2));
  }

  /** Reads a spec (see the class comment). */
  static RateDistribution parse(String spec) {
    Objects.requireNonNull(spec, "spec");
    String s = spec.trim();
    int colon = s.indexOf(':');
    String kind = (colon < 0 ? s : s.substring(0, colon)).toLowerCase(Locale.ROOT);
    List<String> args = colon < 0 ? List.of() : Arrays.stream(s.substring(colon + 1).split(",")).map(String::trim).toList();
    try {
      switch (kind) {
        case "paper":
          expect(spec, args, 0, 0);
          return paper();
        case "fixed":
          expect(spec, args, 1, 1);
          return fixed(Rates.parseRate(args.get(0)));
        case "lognormal":
          expect(spec, args, 2, 2);
          return lognormal(Rates.parseRate(args.get(0)), Double.parseDouble(args.get(1)));
        case "bimodal":
          expect(spec, args, 3, 4);
          return bimodal(Rates.parseRate(args.get(0)), Rates.parseRate(args.get(1)), Double.parseDouble(args.get(2)),
              args.size() == 4 ? Double.parseDouble(args.get(3)) : 0.2);
        case "empirical":
          if (args.isEmpty()) {
            throw new IllegalArgumentException("empirical needs at least one rate");
          }
          return empirical(args.stream().mapToLong(Rates::parseRate).toArray());
        default:
          throw new IllegalArgumentException("unknown distribution '" + kind + "'");
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + spec + "' is not a rate distribution (" + e.getMessage()
          + "): write paper, fixed:10MB, lognormal:6MB,0.4, bimodal:4.5MB,10MB,0.3[,0.2] or empirical:3MB,9MB,...", e);
    }
  }

  private static void expect(String spec, List<String> args, int min, int max) {
    if (args.size() < min || args.size() > max) {
      throw new IllegalArgumentException(min == max ? "takes " + min + " arguments" : "takes " + min + " to " + max + " arguments");
    }
  }

  /** {@link #fixed}. */
  record Fixed(long rate) implements RateDistribution {
    @Override
    public long draw(Random random) {
      return rate;
    }

    @Override
    public double mean() {
      return rate;
    }

    @Override
    public String spec() {
      return "fixed:" + Rates.formatRate(rate);
    }
  }

  /** {@link #lognormal}. */
  record LogNormal(long median, double sigma) implements RateDistribution {
    public LogNormal {
      if (median < MIN_RATE) {
        throw new IllegalArgumentException("median must be at least " + MIN_RATE + " bytes/s: " + median);
      }
      if (!(sigma >= 0 && sigma <= 3)) {
        throw new IllegalArgumentException("sigma must be in [0, 3]: " + sigma);
      }
    }

    @Override
    public long draw(Random random) {
      return Math.max(MIN_RATE, Math.round(median * Math.exp(sigma * random.nextGaussian())));
    }

    @Override
    public double mean() {
      return median * Math.exp(sigma * sigma / 2);
    }

    @Override
    public String spec() {
      return "lognormal:" + Rates.formatRate(median) + "," + sigma;
    }
  }

  /** {@link #bimodal}. */
  record Bimodal(LogNormal slow, LogNormal fast, double pFast) implements RateDistribution {
    public Bimodal {
      if (!(pFast >= 0 && pFast <= 1)) {
        throw new IllegalArgumentException("the fast share must be in [0, 1]: " + pFast);
      }
    }

    @Override
    public long draw(Random random) {
      return random.nextDouble() < pFast ? fast.draw(random) : slow.draw(random);
    }

    @Override
    public double mean() {
      return pFast * fast.mean() + (1 - pFast) * slow.mean();
    }

    @Override
    public String spec() {
      return "bimodal:" + Rates.formatRate(slow.median()) + "," + Rates.formatRate(fast.median()) + "," + pFast + ","
          + slow.sigma();
    }
  }

  /** {@link #empirical}. */
  record Empirical(long[] rates) implements RateDistribution {
    public Empirical {
      for (long r : rates) {
        if (r < MIN_RATE) {
          throw new IllegalArgumentException("every rate must be at least " + MIN_RATE + " bytes/s: " + r);
        }
      }
    }

    @Override
    public long draw(Random random) {
      return rates[random.nextInt(rates.length)];
    }

    @Override
    public double mean() {
      return Arrays.stream(rates).average().orElseThrow();
    }

    @Override
    public String spec() {
      StringBuilder b = new StringBuilder("empirical:");
      for (int i = 0; i < rates.length; i++) {
        b.append(i == 0 ? "" : ",").append(Rates.formatRate(rates[i]));
      }
      return b.toString();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Empirical e && Arrays.equals(rates, e.rates);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(rates);
    }

    @Override
    public String toString() {
      return spec();
    }
  }

  /** A distribution known by a short name ({@code paper}). */
  record Named(String spec, RateDistribution of) implements RateDistribution {
    @Override
    public long draw(Random random) {
      return of.draw(random);
    }

    @Override
    public double mean() {
      return of.mean();
    }
  }
}
