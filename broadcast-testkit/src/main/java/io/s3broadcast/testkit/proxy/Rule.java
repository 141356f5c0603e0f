package io.s3broadcast.testkit.proxy;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Which requests get which {@link Fault}, and how often; also the handle a test uses to check that
 * the fault happened ({@link #injected()}, {@link #awaitInjected}) and to end stalls ({@link
 * #release()}).
 *
 * <pre>{@code
 * Rule rule = proxy.add(Rule.forGets().pathStartsWith("/bucket/").times(2).inject(Fault.slowDown()));
 * }</pre>
 *
 * <p>A rule claims a matching request while it has claims left ({@link Builder#times}, default 1)
 * and, if it has a probability, when its seeded {@link Random} says so. The proxy asks its rules in
 * the order they were added; the first that claims a request decides its fault. Thread-safe.
 */
public final class Rule {
  private final Predicate<RequestHead> matcher;
  private final String description;
  private final Fault fault;
  private final double probability;
  private final Random random;

  private long remaining;
  private long matched;
  private long claimed;
  private long injected;
  private CountDownLatch release = new CountDownLatch(1);

  private Rule(Builder builder, Fault fault) {
    this.matcher = builder.matcher;
    this.description = builder.description;
    this.fault = fault;
    this.probability = builder.probability;
    this.random = builder.random;
    this.remaining = builder.times;
  }

  /** A rule for every request. */
  public static Builder forRequests() {
    return new Builder(head -> true, "any request");
  }

  /** A rule for GET requests. */
  public static Builder forGets() {
    return forMethod("GET");
  }

  /** A rule for PUT requests. */
  public static Builder forPuts() {
    return forMethod("PUT");
  }

  /** A rule for HEAD requests. */
  public static Builder forHeads() {
    return forMethod("HEAD");
  }

  /** A rule for requests with this method (exact, case-sensitive as HTTP is). */
  public static Builder forMethod(String method) {
    Objects.requireNonNull(method);
    return new Builder(head -> head.method().equals(method), method);
  }

  /** A rule for requests matching any predicate. */
  public static Builder matching(Predicate<RequestHead> predicate) {
    return new Builder(Objects.requireNonNull(predicate), "requests matching " + predicate);
  }

  /** The fault this rule injects. */
  public Fault fault() {
    return fault;
  }

  /** Requests that matched the rule's predicate, whether claimed or not. */
  public synchronized long matched() {
    return matched;
  }

  /** Requests this rule claimed (decided the fault of). */
  public synchronized long claimed() {
    return claimed;
  }

  /**
   * Faults actually injected; less than {@link #claimed()} while a claimed response is still on its
   * way, or when a body fault's offset was past the end of the body.
   */
  public synchronized long injected() {
    return injected;
  }

  /** Claims left; {@link Long#MAX_VALUE} means unlimited. */
  public synchronized long remaining() {
    return remaining;
  }

  /** Stops the rule claiming further requests. */
  public synchronized void disable() {
    remaining = 0;
  }

  /**
   * Waits until this rule has injected at least {@code count} faults (for a stall: until the stall
   * has begun).
   *
   * @return whether it happened within {@code timeout}
   */
  public synchronized boolean awaitInjected(long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (injected < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** Ends the stalls this rule is holding now; later stalls wait for the next release. */
  public void release() {
    CountDownLatch current;
    synchronized (this) {
      current = release;
      release = new CountDownLatch(1);
    }
    current.countDown();
  }

  synchronized boolean claim(RequestHead head) {
    if (!matcher.test(head)) {
      return false;
    }
    matched++;
    if (remaining <= 0) {
      return false;
    }
    if (random != null && random.nextDouble() >= probability) {
      return false;
    }
    if (remaining != Long.MAX_VALUE) {
      remaining--;
    }
    claimed++;
    return true;
  }

  synchronized void recordInjected() {
    injected++;
    notifyAll();
  }

  synchronized CountDownLatch releaseLatch() {
    return release;
  }

  @Override
  public String toString() {
    String often = random != null ? " with probability " + probability : "";
    return "Rule[" + description + often + ": " + fault + "]";
  }

  /** Builds a {@link Rule}: narrow the match, say how often, then {@link #inject} a fault. */
  public static final class Builder {
    private Predicate<RequestHead> matcher;
    private String description;
    private long times = 1;
    private boolean timesSet;
    private double probability = 1.0;
    private Random random;

    private Builder(Predicate<RequestHead> matcher, String description) {
      this.matcher = matcher;
      this.description = description;
    }

    private Builder and(Predicate<RequestHead> more, String what) {
      matcher = matcher.and(more);
      description = description + " " + what;
      return this;
    }

    /** Only requests whose path (target without query) equals {@code path}. */
    public Builder path(String path) {
      Objects.requireNonNull(path);
      return and(head -> head.path().equals(path), "path=" + path);
    }

    /** Only requests whose path starts with {@code prefix}. */
    public Builder pathStartsWith(String prefix) {
      Objects.requireNonNull(prefix);
      return and(head -> head.path().startsWith(prefix), "path^=" + prefix);
    }

    /** Only requests whose path matches {@code regex} entirely. */
    public Builder pathMatches(String regex) {
      Pattern pattern = Pattern.compile(regex);
      return and(head -> pattern.matcher(head.path()).matches(), "path~" + regex);
    }

    /** Only requests with a {@code Range} header. */
    public Builder withRange() {
      return and(head -> head.range().isPresent(), "with Range");
    }

    /** Only requests without a {@code Range} header. */
    public Builder withoutRange() {
      return and(head -> head.range().isEmpty(), "without Range");
    }

    /** Only requests whose {@code Range} header is present and satisfies {@code test}. */
    public Builder range(Predicate<String> test) {
      Objects.requireNonNull(test);
      return and(head -> head.range().filter(test).isPresent(), "Range matching " + test);
    }

    /** Only requests whose {@code Range} header equals {@code range}, e.g. {@code bytes=0-1023}. */
    public Builder range(String range) {
      Objects.requireNonNull(range);
      return and(head -> head.range().filter(range::equals).isPresent(), "Range=" + range);
    }

    /** Only requests that also satisfy {@code predicate}. */
    public Builder where(Predicate<RequestHead> predicate) {
      Objects.requireNonNull(predicate);
      return and(predicate, "where " + predicate);
    }

    /** Claims at most the next {@code n} matching requests (default 1, or unlimited with a probability). */
    public Builder times(long n) {
      if (n < 1) {
        throw new IllegalArgumentException("times must be positive: " + n);
      }
      times = n;
      timesSet = true;
      return this;
    }

    /** Claims every matching request. */
    public Builder always() {
      times = Long.MAX_VALUE;
      timesSet = true;
      return this;
    }

    /**
     * Claims each matching request with probability {@code p}, drawn from a {@link Random} seeded
     * with {@code seed}; unlimited claims unless {@link #times} is also given.
     */
    public Builder withProbability(double p, long seed) {
      if (!(p >= 0 && p <= 1)) {
        throw new IllegalArgumentException("probability must be in [0, 1]: " + p);
      }
      probability = p;
      random = new Random(seed);
      if (!timesSet) {
        times = Long.MAX_VALUE;
      }
      return this;
    }

    /** The rule; add it with {@link FaultProxy#add(Rule)}. */
    public Rule inject(Fault fault) {
      return new Rule(this, Objects.requireNonNull(fault));
    }
  }
}
