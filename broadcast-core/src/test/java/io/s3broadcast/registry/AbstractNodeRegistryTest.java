package io.s3broadcast.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class AbstractNodeRegistryTest {

    private static final NodeInfo A = new NodeInfo("a", "10.0.0.1", 7000);
    private static final NodeInfo B = new NodeInfo("b", "10.0.0.2", 7000);
    private static final NodeInfo C = new NodeInfo("c", "10.0.0.3", 7000);

    @Test
    void newListenerFirstHearsCurrentMembersThenChanges() {
        FakeRegistry registry = new FakeRegistry();
        registry.start();
        registry.join(B);
        registry.join(A);
        RecordingListener listener = new RecordingListener();
        registry.watch(listener);
        registry.join(C);
        registry.drop("a");
        assertThat(listener.events).containsExactly("+a", "+b", "+c", "-a");
        assertThat(registry.members()).containsExactly(B, C);
    }

    @Test
    void replaceMembersReportsTheDifferenceAndAnAddressChangeAsLeaveThenJoin() {
        FakeRegistry registry = new FakeRegistry();
        registry.view(List.of(A, B));
        RecordingListener listener = new RecordingListener();
        registry.watch(listener);
        NodeInfo movedB = new NodeInfo("b", "10.0.0.2", 7001);
        registry.view(List.of(movedB, C));
        registry.view(List.of(movedB, C));
        assertThat(listener.events).containsExactly("+a", "+b", "-a", "-b", "+b", "+c");
        assertThat(registry.members()).containsExactly(movedB, C);
    }

    @Test
    void closedWatchHearsNothingMore() {
        FakeRegistry registry = new FakeRegistry();
        RecordingListener listener = new RecordingListener();
        NodeRegistry.Watch watch = registry.watch(listener);
        registry.join(A);
        watch.close();
        registry.join(B);
        assertThat(listener.events).containsExactly("+a");
    }

    @Test
    void aFailingListenerDoesNotStopOthers() {
        FakeRegistry registry = new FakeRegistry();
        registry.watch(new MembershipListener() {
            @Override
            public void joined(NodeInfo node) {
                throw new IllegalStateException("boom");
            }
        });
        RecordingListener listener = new RecordingListener();
        registry.watch(listener);
        registry.join(A);
        assertThat(listener.events).containsExactly("+a");
    }

    @Test
    void eventsCausedInsideAListenerComeAfterTheCurrentOne() {
        FakeRegistry registry = new FakeRegistry();
        RecordingListener second = new RecordingListener();
        registry.watch(new MembershipListener() {
            @Override
            public void joined(NodeInfo node) {
                if (node.equals(A)) {
                    registry.join(B);
                }
            }
        });
        registry.watch(second);
        registry.join(A);
        assertThat(second.events).containsExactly("+a", "+b");
    }

    @Test
    void lifecycleIsEnforcedAndCloseLeaves() {
        FakeRegistry registry = new FakeRegistry();
        assertThatThrownBy(() -> registry.register(A)).isInstanceOf(IllegalStateException.class).hasMessageContaining("start");
        registry.start();
        registry.start();
        assertThat(registry.register(A)).isEqualTo(A);
        assertThat(registry.self()).contains(A);
        assertThatThrownBy(() -> registry.register(B)).isInstanceOf(IllegalStateException.class).hasMessageContaining("already");
        registry.close();
        registry.close();
        assertThat(registry.calls).containsExactly("start", "register a", "leave a", "close");
        assertThat(registry.self()).isEmpty();
        assertThatThrownBy(registry::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void leaveThenRegisterAgain() {
        FakeRegistry registry = new FakeRegistry();
        registry.start();
        registry.register(A);
        registry.leave();
        registry.leave();
        assertThat(registry.members()).isEmpty();
        registry.register(A);
        assertThat(registry.members()).containsExactly(A);
        assertThat(registry.calls).containsExactly("start", "register a", "leave a", "register a");
    }

    @Test
    void doStartMayWaitForAThreadThatReportsMembers() {
        AbstractNodeRegistry registry = new AbstractNodeRegistry(GroupId.of("b", "k", "e")) {
            @Override
            protected void doStart() {
                CompletableFuture.runAsync(() -> {
                    if (!isClosed() && registeredSelf() == null) {
                        replaceMembers(List.of(A, B));
                        memberLeft("b");
                        memberJoined(C);
                    }
                }).join();
            }

            @Override
            protected NodeInfo doRegister(NodeInfo node) {
                return node;
            }

            @Override
            protected void doLeave(NodeInfo node) {
            }

            @Override
            protected void doClose() {
            }
        };
        assertTimeoutPreemptively(Duration.ofSeconds(10), registry::start);
        assertThat(registry.members()).containsExactly(A, C);
    }
}
