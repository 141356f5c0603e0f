package io.s3broadcast.p2p.protocol;

import io.netty.channel.DefaultFileRegion;
import java.nio.channels.FileChannel;

/**
 * A {@link DefaultFileRegion} over a file channel that it does not own. {@code DefaultFileRegion} closes its file
 * when released, which would close the piece store's one channel after the first piece sent; this one leaves it
 * open. It stays a {@code DefaultFileRegion} so that native transports still use {@code sendfile}.
 */
final class SharedFileRegion extends DefaultFileRegion {

    SharedFileRegion(FileChannel file, long position, long count) {
        super(file, position, count);
    }

    @Override
    protected void deallocate() {
        // The file belongs to the piece store, which closes it.
    }
}
