package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.s3broadcast.testkit.time.ManualScheduler;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link LinkUse} on fake counters and fake time: two nodes whose links carry 400 and 600 bytes per second, 1,000
 * together, read every 250 ms from time 0.
 */
class LinkUseTest {

    private static final Duration INTERVAL = LinkUse.INTERVAL;
    private static final Path A = Path.of("a");
    private static final Path B = Path.of("b");

    private final ManualScheduler time = new ManualScheduler();
    private final Map<Path, Long> counters = new HashMap<>(Map.of(A, 5_000L, B, 7_000L));

    private LinkUse links() {
        return new LinkUse(List.of(A, B), List.of(400.0, 600.0), c -> {
            Long v = counters.get(c);
            if (v == null) {
                throw new NoSuchFileException(c.toString());
            }
            return v;
        }, time, time.clock()).start();
    }

    /** Both nodes download {@code bytes} between now and {@code INTERVAL} from now. */
    private void download(long bytesA, long bytesB) {
        counters.merge(A, bytesA, Long::sum);
        counters.merge(B, bytesB, Long::sum);
        time.advance(INTERVAL);
    }

    @Test
    void eachSecondIsWhatAllNodesDownloadedOverTheLinksCapacity() {
        LinkUse links = links();
        for (int i = 0; i < 4; i++) {
            download(0, 25); // 100 bytes/s: the links a tenth full
        }
        for (int i = 0; i < 4; i++) {
            download(125, 125); // 1,000 bytes/s: full
        }
        links.stop();

        assertThat(links.perSecond(0, 2_000)).containsExactly(0.1, 1.0);
        // a second between readings: 50 bytes from 0.5 s to 1 s, 500 from 1 s to 1.5 s; the next one has no reading
        // to its end
        assertThat(links.perSecond(500, 2_000)).containsExactly(0.55);
    }

    @Test
    void aSecondStartingBeforeTheEndCountsAndOneNotCoveredByReadingsEndsTheList() {
        LinkUse links = links();
        for (int i = 0; i < 6; i++) {
            download(125, 125);
        }
        links.stop();

        // readings to 1.5 s: the second from 1 s is not covered to its end
        assertThat(links.perSecond(0, 1_200)).containsExactly(1.0);
        assertThat(links.perSecond(0, 900)).containsExactly(1.0);
        assertThat(links.perSecond(0, 0)).isEmpty();
    }

    @Test
    void unreadableCountersOrNoCapacityTellNothing() {
        counters.remove(B);
        LinkUse gone = links();
        time.advance(Duration.ofSeconds(2));
        gone.stop();
        assertThat(gone.perSecond(0, 2_000)).isNull();
        assertThat(time.scheduled()).isEmpty();

        counters.put(B, 0L);
        LinkUse unshaped = new LinkUse(List.of(A, B), List.of(500.0, 0.0), c -> counters.get(c), time, time.clock())
                .start();
        download(125, 125);
        download(125, 125);
        download(125, 125);
        download(125, 125);
        unshaped.stop();
        assertThat(unshaped.perSecond(2_000, 3_000)).isNull();
        assertThat(unshaped.perSecondByCounter(2_000, 3_000)).isNull();
    }

    @Test
    void eachNodeAloneIsWhatItMovedOverItsOwnLinksCapacity() {
        LinkUse links = links(); // A's link carries 400 bytes per second, B's 600
        for (int i = 0; i < 4; i++) {
            download(100, 50); // A full, B a third
        }
        for (int i = 0; i < 4; i++) {
            download(50, 150); // A half, B full
        }
        links.stop();

        assertThat(links.perSecondByCounter(0, 2_000)).containsExactly(List.of(1.0, 0.5), List.of(0.33, 1.0));
        assertThat(links.perSecond(0, 2_000)).containsExactly(0.6, 0.8);
    }

    @Test
    void theTrialPrintsTheFirstSecondsAndTheMeanOfTheRestForDownloadsAndUploads() {
        FleetTrial trial = FleetTrials.of(8.0, 0.5);
        LinkUse downloads = links();
        for (int i = 0; i < 36; i++) {
            download(i < 4 ? 0 : 125, i < 4 ? 25 : 125);
        }
        downloads.stop();
        LinkUse uploads = new LinkUse(List.of(A, B), List.of(1_000.0, 1_000.0), counters::get, time, time.clock());
        // never started
        FleetTrial withUse = trial.withLinkUse(downloads, uploads, 0);

        assertThat(withUse.linkUse()).containsExactly(0.1, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0);
        assertThat(withUse.uploadLinkUse()).isNull();
        StringWriter text = new StringWriter();
        FleetTables.printLinkUse(new PrintWriter(text, true), withUse);
        assertThat(text.toString()).contains("download links used (all nodes, of their capacity), by second from the"
                + " start: 10% 100% 100% 100% 100% 100%, then 100% on average").doesNotContain("upload");

        FleetTrial bothWays = trial.withLinkUse(downloads, downloads, 0);
        StringWriter both = new StringWriter();
        FleetTables.printLinkUse(new PrintWriter(both, true), bothWays);
        assertThat(both.toString()).contains("upload links used (all nodes, of their capacity), by second from the"
                + " start: 10% 100%");
        StringWriter none = new StringWriter();
        FleetTables.printLinkUse(new PrintWriter(none, true), trial);
        assertThat(none.toString()).isEmpty();
    }
}
