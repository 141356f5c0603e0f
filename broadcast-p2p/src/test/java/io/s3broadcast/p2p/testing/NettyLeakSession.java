package io.s3broadcast.p2p.testing;

import io.netty.util.ResourceLeakDetector;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Installs {@link NettyLeaks} when the JUnit platform opens its session, before any test class (and so before
 * Netty) loads; registered in {@code META-INF/services}. At the end of the session it reports leaks that no test
 * class was left to fail on.
 */
public final class NettyLeakSession implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        NettyLeaks.install();
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        NettyLeaks.collect();
        for (String leak : NettyLeaks.drain()) {
            System.err.println("Netty leak reported after the last test class (level "
                    + ResourceLeakDetector.getLevel() + "): " + leak);
        }
    }
}
