package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GroupIdTest {

    private static final String ETAG = "d41d8cd98f00b204e9800998ecf8427e-12";

    /** Golden values, computed independently of this code from the encoding in GroupId's description. */
    @Test
    void hashIsStable() {
        assertThat(GroupId.of("my-bucket", "data/model.bin", ETAG).hash()).isEqualTo("de6b91846bc2d52de241daffa7161c21");
        assertThat(GroupId.of("my-bucket", "data/model.bin", ETAG, "nightly").hash()).isEqualTo("cfee43556c0623b2293cfc0f5ed8b579");
        assertThat(GroupId.of("bücket", "ключ", "e").hash()).isEqualTo("22c882f1e62f505d61d797d6a2862d75");
    }

    @Test
    void hashIsAPathComponent() {
        assertThat(GroupId.of("b", "a/b/../c d", "x", "n/m").hash()).matches("[0-9a-f]{32}");
    }

    @Test
    void quotedAndUnquotedETagAreOneGroup() {
        GroupId quoted = GroupId.of("b", "k", "\"" + ETAG + "\"");
        GroupId bare = GroupId.of("b", "k", ETAG);
        assertThat(quoted).isEqualTo(bare).hasSameHashCodeAs(bare);
        assertThat(quoted.hash()).isEqualTo(bare.hash());
        assertThat(quoted.eTag()).isEqualTo(ETAG);
    }

    @Test
    void emptyNameIsNoName() {
        assertThat(GroupId.of("b", "k", "e", "")).isEqualTo(GroupId.of("b", "k", "e"));
        assertThat(GroupId.of("b", "k", "e", null).name()).isEmpty();
        assertThat(GroupId.of("b", "k", "e", "n").name()).contains("n");
    }

    @Test
    void fieldBoundariesMatter() {
        assertThat(GroupId.of("ab", "c", "e").hash()).isNotEqualTo(GroupId.of("a", "bc", "e").hash());
        assertThat(GroupId.of("b", "k", "e", "n").hash()).isNotEqualTo(GroupId.of("b", "k", "e").hash());
        assertThat(GroupId.of("b", "k", "e2").hash()).isNotEqualTo(GroupId.of("b", "k", "e").hash());
    }

    @Test
    void rejectsEmptyParts() {
        assertThatThrownBy(() -> GroupId.of("", "k", "e")).hasMessageContaining("bucket");
        assertThatThrownBy(() -> GroupId.of("b", "", "e")).hasMessageContaining("key");
        assertThatThrownBy(() -> GroupId.of("b", "k", "\"\"")).hasMessageContaining("eTag");
    }

    @Test
    void toStringNamesTheObject() {
        assertThat(GroupId.of("b", "k", "\"e\"", "n")).hasToString("s3://b/k@e#n");
    }
}
