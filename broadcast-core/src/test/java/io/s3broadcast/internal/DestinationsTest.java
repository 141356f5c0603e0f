package io.s3broadcast.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.FetchRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DestinationsTest {

    @TempDir
    Path dir;

    @Test
    void defaultNameIsTheKeysLastSegment() {
        assertThat(Destinations.resolve(FetchRequest.of("b", "models/v1/weights.bin"), dir))
                .isEqualTo(dir.resolve("weights.bin"));
        Path explicit = dir.resolve("x/y.bin");
        assertThat(Destinations.resolve(FetchRequest.builder().bucket("b").key("k/").destination(explicit).build(), dir))
                .isEqualTo(explicit);
    }

    @Test
    void backslashesSeparateSegmentsToo() {
        assertThat(Destinations.resolve(FetchRequest.of("b", "models\\v1\\weights.bin"), dir))
                .isEqualTo(dir.resolve("weights.bin"));
        assertThat(Destinations.resolve(FetchRequest.of("b", "a/b\\c.bin"), dir)).isEqualTo(dir.resolve("c.bin"));
        assertThat(Destinations.resolve(FetchRequest.of("b", "..\\..\\etc\\passwd"), dir))
                .isEqualTo(dir.resolve("passwd"));
    }

    @Test
    void aKeyWhoseLastSegmentIsDotOrDotDotOrEmptyNeedsAnExplicitDestination() {
        for (String key : new String[] {"folder\\", "a\\..", "a/.", "..", "."}) {
            assertThatThrownBy(() -> Destinations.resolve(FetchRequest.of("b", key), dir)).as(key)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + key + "' has no file name").hasMessageContaining("destination(path)");
        }
    }

    @Test
    void aKeyWithoutAFileNameNeedsAnExplicitDestination() {
        assertThatThrownBy(() -> Destinations.resolve(FetchRequest.of("b", "folder/"), dir))
                .hasMessageContaining("'folder/'").hasMessageContaining("destination(path)");
    }

    @Test
    void createsMissingDirectories() {
        Path dest = dir.resolve("a/b/c.bin");
        Destinations.check(dest, 10, "s3://b/k");
        assertThat(dest.getParent()).isDirectory();
    }

    @Test
    void aDirectoryUnderAFileIsUnusable() throws Exception {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> Destinations.check(file.resolve("obj.bin"), 10, "s3://b/k"))
                .isInstanceOf(BroadcastException.DestinationUnusable.class)
                .hasMessageContaining("cannot create directory").hasMessageContaining("writable destination");
    }

    @Test
    void aDestinationThatIsADirectoryIsUnusable() {
        assertThatThrownBy(() -> Destinations.check(dir, 10, "s3://b/k"))
                .isInstanceOf(BroadcastException.DestinationUnusable.class).hasMessageContaining("is a directory");
    }

    @Test
    void tooLittleSpaceIsCaughtBeforeFetching() {
        assertThatThrownBy(() -> Destinations.check(dir.resolve("big"), Long.MAX_VALUE / 2, "s3://b/k"))
                .isInstanceOf(BroadcastException.DestinationUnusable.class)
                .hasMessageContaining("needs").hasMessageContaining("free space or choose another destination");
    }
}
