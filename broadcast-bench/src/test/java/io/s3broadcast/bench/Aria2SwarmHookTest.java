package io.s3broadcast.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The swarm's download-complete hook, run by sh as aria2c runs it (GID, file count, path of the file). */
class Aria2SwarmHookTest {

    @Test
    void writesTheTimeBesideTheFileUnderItsFinalNameOnly(@TempDir Path dir) throws Exception {
        Path hook = dir.resolve("done.sh");
        Files.writeString(hook, Aria2Swarm.DONE_HOOK);
        Path node = Files.createDirectories(dir.resolve("node 0"));
        long before = System.currentTimeMillis();
        Process p = new ProcessBuilder("sh", hook.toString(), "2089b05ecca3d829", "1",
                node.resolve("object.bin").toString()).inheritIO().start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        long written = Long.parseLong(Files.readString(node.resolve("done")).trim());
        assertThat(written).isBetween(before - 1_000, System.currentTimeMillis() + 1_000);
        assertThat(node.resolve("done.tmp")).doesNotExist();
    }
}
