package io.s3broadcast.internal;

import io.s3broadcast.BroadcastException;
import io.s3broadcast.FetchRequest;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** Where a fetched object goes, and whether it can go there, checked before any byte is fetched. */
final class Destinations {

    private Destinations() {
    }

    /**
     * The request's destination, or the default directory joined with the key's last segment. Both {@code /}
     * and {@code \\} end a segment, so a key written with Windows separators cannot name a path outside the
     * directory on any platform; the result is always a file directly in {@code defaultDirectory}.
     */
    static Path resolve(FetchRequest request, Path defaultDirectory) {
        if (request.destination().isPresent()) {
            return request.destination().get().toAbsolutePath();
        }
        String key = request.key();
        String name = key.substring(Math.max(key.lastIndexOf('/'), key.lastIndexOf('\\')) + 1);
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("key '" + key + "' has no file name to store it under (its last"
                    + " segment is '" + name + "'): set FetchRequest.builder().destination(path)");
        }
        Path directory = defaultDirectory.toAbsolutePath();
        Path path;
        try {
            path = directory.resolve(name);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("key '" + key + "' is not a valid file name here: set"
                    + " FetchRequest.builder().destination(path)", e);
        }
        // A name this platform reads as a root or a drive ("C:x" on Windows) would leave the directory.
        if (!directory.equals(path.getParent()) || !path.getFileName().toString().equals(name)) {
            throw new IllegalArgumentException("key '" + key + "' does not name a file in " + directory + ": set"
                    + " FetchRequest.builder().destination(path)");
        }
        return path;
    }

    /**
     * Creates the destination's directory if needed and checks that {@code size} bytes fit there (counting the
     * space its temporary files from earlier fetches hold as free: the fetch resumes from them or removes them;
     * a part file holds the pieces its journal lists, not its sparse size: {@link PartFiles#bytesHeld}).
     *
     * @throws BroadcastException.DestinationUnusable saying what is wrong and what to do
     */
    static void check(Path destination, long size, String object) {
        Path dir = destination.getParent();
        if (Files.isDirectory(destination)) {
            throw unusable(destination + " is a directory; name a file for " + object + " to be written to", null);
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw unusable("cannot create directory " + dir + " for " + object + " (" + e
                    + "): choose a writable destination", e);
        }
        if (!Files.isWritable(dir)) {
            throw unusable("directory " + dir + " is not writable: choose a writable destination for " + object, null);
        }
        try {
            FileStore store = Files.getFileStore(dir);
            // Temporary files of this destination are resumed from or removed: their space counts as free.
            long free = store.getUsableSpace() + PartFiles.bytesHeld(destination);
            if (free < size) {
                throw unusable(String.format("%s needs %,d bytes but %s (%s) has %,d bytes free: free space or choose"
                        + " another destination", object, size, dir, store, free), null);
            }
        } catch (IOException e) {
            throw unusable("cannot tell the free space of " + dir + " (" + e + ")", e);
        }
    }

    static BroadcastException.DestinationUnusable unusable(String message, Throwable cause) {
        return new BroadcastException.DestinationUnusable(message, cause);
    }
}
