package io.s3broadcast.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Nodes that join a fleet's broadcast late and nodes that leave it mid-run ({@code fleet --join 2@5s --leave 2@5s}):
 * the last {@code join} nodes start fetching {@code joinAt} after the transfer started ({@link ChurnClock}); the
 * {@code leave} nodes before them close their {@code Broadcast} {@code leaveAt} after it (a graceful leave: they hand
 * their works on and say goodbye).
 * Joiners need a registry that lets a node in after the group is complete, so a fleet with joiners uses the S3-prefix
 * registry on the bench's S3 server instead of a static list.
 *
 * @param join how many nodes join late
 * @param joinAt how long after the transfer started they start fetching
 * @param leave how many nodes leave mid-run
 * @param leaveAt how long after the transfer started they leave
 */
record Churn(int join, Duration joinAt, int leave, Duration leaveAt) {

    static final Churn NONE = new Churn(0, Duration.ZERO, 0, Duration.ZERO);

    /** Width of a throughput bucket in the trial's time series. */
    static final long BUCKET_MILLIS = 250;

    private static final Pattern SPEC = Pattern.compile("(\\d+)@(.+)");

    /** A node's part in the run. */
    enum Role {
        /** Starts with the others and stays to the end. */
        STAY,
        /** Starts {@link #joinAt} after the transfer started. */
        JOIN,
        /** Leaves {@link #leaveAt} after the transfer started. */
        LEAVE;

        String describe() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code --join} and {@code --leave} values ({@code COUNT@DURATION}, e.g. {@code 2@5s}), each may be null. */
    static Churn parse(String join, String leave, int nodes) {
        int j = 0;
        Duration jAt = Duration.ZERO;
        int l = 0;
        Duration lAt = Duration.ZERO;
        if (join != null) {
            Matcher m = match(join, "--join");
            j = Integer.parseInt(m.group(1));
            jAt = duration(m.group(2), "--join");
        }
        if (leave != null) {
            Matcher m = match(leave, "--leave");
            l = Integer.parseInt(m.group(1));
            lAt = duration(m.group(2), "--leave");
        }
        if (j + l >= nodes) {
            throw new IllegalArgumentException("--join " + j + " and --leave " + l + " leave no node that starts and stays"
                    + " in a fleet of " + nodes);
        }
        return new Churn(j, jAt, l, lAt);
    }

    private static Matcher match(String value, String option) {
        Matcher m = SPEC.matcher(value.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " is COUNT@DURATION, e.g. 2@5s, not '" + value + "'");
        }
        return m;
    }

    private static Duration duration(String text, String option) {
        try {
            return new Converters.DurationConverter().convert(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(option + ": '" + text + "' is not a duration such as 5s or 1500ms");
        }
    }

    boolean any() {
        return join > 0 || leave > 0;
    }

    /** Node {@code i}'s role in a fleet of {@code nodes}: joiners last, leavers just before them. */
    Role role(int i, int nodes) {
        if (i >= nodes - join) {
            return Role.JOIN;
        }
        if (i >= nodes - join - leave) {
            return Role.LEAVE;
        }
        return Role.STAY;
    }

    /** How many nodes start together (and expect each other): all but the joiners. */
    int starters(int nodes) {
        return nodes - join;
    }

    String describe() {
        return (join > 0 ? join + " join" : "") + (join > 0 && leave > 0 ? ", " : "")
                + (leave > 0 ? leave + " leave" : "") + " at "
                + (join > 0 ? "+" + seconds(joinAt) : "") + (join > 0 && leave > 0 ? " and " : "")
                + (leave > 0 ? "+" + seconds(leaveAt) : "") + " from the transfer's start";
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1e3);
    }
}
