package io.s3broadcast.bench;

import java.nio.file.Path;
import java.util.Map;

/**
 * One way of getting an S3 object onto local disk, set up once and then timed over several trials. Clients are
 * built in the constructor, so the time of a {@link #download} is the transfer alone.
 */
interface DownloadMethod extends AutoCloseable {

    /** The name used in the table and the JSON line, e.g. {@code transferManager}. */
    String name();

    /** The settings that shape its speed (client, connections, part size...), reported as they are. */
    Map<String, Object> settings();

    /**
     * Downloads {@code s3://bucket/key} to {@code destination} (which does not exist) and returns when it is there.
     *
     * @return the {@link System#nanoTime()} at which the object's last byte was in the file, before whatever
     *     verification, fsync or rename the method does after that
     */
    long download(String bucket, String key, Path destination) throws Exception;

    /** Whether {@link #download} returns only once the file is durable (fsynced), so the bench must not add one. */
    default boolean syncsToDisk() {
        return false;
    }

    /**
     * For a method that downloads in a process of its own: what that process measured in the latest
     * {@link #download}; null for a method that runs in this JVM.
     */
    default ChildProcessRun lastProcess() {
        return null;
    }

    @Override
    void close();
}
