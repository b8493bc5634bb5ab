package dev.retryagent.agent.startup.bootloading;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Build time only (compiled from agent/src/build/java to a directory of its own, run by the agent's pom, in no jar):
 * writes the class files of the bootstrap jar as the two packs {@code BootClasses} defines, each class after its
 * superclass and interfaces, so that start-up reads one entry per pack and parses no class file: the core pack, and
 * the parser pack ({@link #parserOnly}; less any class the core needs as a supertype). Records: u2 name length, the
 * binary name, u4 class file length, the class file.
 *
 * <pre>java dev.retryagent.agent.startup.bootloading.BootClassPack bootstrap.jar boot-core.classes boot-parser.classes</pre>
 */
final class BootClassPack {
    /** The relocated SnakeYAML: only the policy file parser links to it. */
    static final String PARSER_PREFIX = "dev/retryagent/shaded/snakeyaml/";
    /** The relocated libraries (SnakeYAML, Byte Buddy's ASM). */
    static final String SHADED_PREFIX = "dev/retryagent/shaded/";

    private BootClassPack() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: BootClassPack <bootstrap.jar> <core pack> <parser pack>");
        }
        Map<String, byte[]> all = readClasses(args[0]);
        // The shaded libraries' classes that no class of the agent can reach are left out: linkage follows the
        // constant pool, and nothing loads a library class by name (checked when this was written: ASM's
        // Class.forName loads the classes it weaves; SnakeYAML's looks up charsets).
        Set<String> reachable = reachable(all);
        Map<String, byte[]> classes = new LinkedHashMap<String, byte[]>();
        for (Map.Entry<String, byte[]> e : all.entrySet()) {
            if (reachable.contains(e.getKey())) {
                classes.put(e.getKey(), e.getValue());
            }
        }
        Set<String> parserOnly = parserOnly(classes);
        List<String> core = new ArrayList<String>();
        List<String> parser = new ArrayList<String>();
        Map<String, byte[]> pending = new LinkedHashMap<String, byte[]>(classes);
        for (String name : classes.keySet()) {
            if (!parserOnly.contains(name)) {
                order(name, pending, core);
            }
        }
        for (String name : classes.keySet()) {
            order(name, pending, parser);
        }
        write(args[1], core, classes);
        write(args[2], parser, classes);
        System.out.println("boot class packs: " + core.size() + " core, " + parser.size() + " parser classes, "
                + (all.size() - classes.size()) + " unreachable library classes left out");
    }

    /** The classes of {@code classes} that the agent's own (all but the shaded libraries') can link to. */
    static Set<String> reachable(Map<String, byte[]> classes) {
        Set<String> seen = new HashSet<String>();
        Deque<String> todo = new ArrayDeque<String>();
        for (String name : classes.keySet()) {
            if (!name.startsWith(SHADED_PREFIX)) {
                todo.add(name);
            }
        }
        while (!todo.isEmpty()) {
            String name = todo.remove();
            byte[] bytes = classes.get(name);
            if (bytes != null && seen.add(name)) {
                todo.addAll(references(bytes));
            }
        }
        return seen;
    }

    /**
     * SnakeYAML, and every class that names a class of this set (policy-core's parser: {@code PolicyLoader},
     * {@code PolicyYaml}, ...): the classes only a parse runs. Their one entry is {@code PolicyLoader}, which only
     * {@code PolicyWatcher} calls, after {@code BootClasses.defineParser}.
     */
    static Set<String> parserOnly(Map<String, byte[]> classes) {
        Map<String, Set<String>> references = new LinkedHashMap<String, Set<String>>();
        Set<String> parser = new HashSet<String>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            references.put(e.getKey(), references(e.getValue()));
            if (e.getKey().startsWith(PARSER_PREFIX)) {
                parser.add(e.getKey());
            }
        }
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Map.Entry<String, Set<String>> e : references.entrySet()) {
                if (!parser.contains(e.getKey()) && !Collections.disjoint(e.getValue(), parser)) {
                    parser.add(e.getKey());
                    grew = true;
                }
            }
        }
        return parser;
    }

    /** The internal names a class file names: its class constants, and the class types in its descriptors. */
    static Set<String> references(byte[] b) {
        Set<String> names = new HashSet<String>();
        List<String> utf8s = new ArrayList<String>();
        int count = u2(b, 8);
        int p = 10;
        for (int i = 1; i < count; i++) {
            int tag = b[p] & 0xff;
            if (tag == 1) {
                utf8s.add(new String(b, p + 3, u2(b, p + 1), StandardCharsets.UTF_8));
            }
            p += entrySize(b, p);
            if (tag == 5 || tag == 6) {
                i++;
            }
        }
        for (String utf8 : utf8s) {
            // Class constants are internal names or array descriptors; descriptors and signatures hold Lname;
            names.add(utf8);
            int at = 0;
            while ((at = utf8.indexOf('L', at)) >= 0) {
                int end = utf8.indexOf(';', at);
                if (end < 0) {
                    break;
                }
                names.add(utf8.substring(at + 1, end));
                at++;
            }
        }
        return names;
    }

    /** Appends {@code name} to {@code ordered} if still pending, after its pending supertypes. */
    private static void order(String name, Map<String, byte[]> pending, List<String> ordered) {
        byte[] bytes = pending.remove(name);
        if (bytes == null) {
            return; // ordered already, or a JDK type
        }
        for (String supertype : supertypes(bytes)) {
            order(supertype, pending, ordered);
        }
        ordered.add(name);
    }

    private static void write(String file, List<String> names, Map<String, byte[]> classes) throws IOException {
        DataOutputStream out = new DataOutputStream(new FileOutputStream(file));
        try {
            for (String name : names) {
                byte[] binaryName = name.replace('/', '.').getBytes(StandardCharsets.US_ASCII);
                byte[] bytes = classes.get(name);
                out.writeShort(binaryName.length);
                out.write(binaryName);
                out.writeInt(bytes.length);
                out.write(bytes);
            }
        } finally {
            out.close();
        }
    }

    /** The {@code .class} entries of the jar, by internal name, in the jar's order. */
    static Map<String, byte[]> readClasses(String jar) throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<String, byte[]>();
        ZipFile zip = new ZipFile(jar);
        try {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                String name = entry.getName();
                if (!name.endsWith(".class") || name.startsWith("META-INF/") || name.endsWith("module-info.class")) {
                    continue;
                }
                for (int i = 0; i < name.length(); i++) {
                    if (name.charAt(i) > 127) {
                        throw new IOException("not an ASCII class name: " + name);
                    }
                }
                InputStream in = zip.getInputStream(entry);
                try {
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    copy(in, bytes);
                    classes.put(name.substring(0, name.length() - ".class".length()), bytes.toByteArray());
                } finally {
                    in.close();
                }
            }
        } finally {
            zip.close();
        }
        return classes;
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buffer = new byte[16384];
        int n;
        while ((n = in.read(buffer)) > 0) {
            out.write(buffer, 0, n);
        }
    }

    /** The internal names of the superclass (if any) and the interfaces of the class file {@code b}. */
    static List<String> supertypes(byte[] b) {
        int count = u2(b, 8);
        int[] entries = new int[count];
        int p = 10;
        for (int i = 1; i < count; i++) {
            entries[i] = p + 1;
            int tag = b[p] & 0xff;
            p += entrySize(b, p);
            if (tag == 5 || tag == 6) {
                i++; // a long or a double takes two entries
            }
        }
        // p: access_flags, this_class, super_class, interfaces_count, interfaces
        List<String> names = new ArrayList<String>(4);
        int superIndex = u2(b, p + 4);
        if (superIndex != 0) {
            names.add(className(b, entries, superIndex));
        }
        int interfaces = u2(b, p + 6);
        for (int i = 0; i < interfaces; i++) {
            names.add(className(b, entries, u2(b, p + 8 + 2 * i)));
        }
        return names;
    }

    /** The size in bytes of the constant pool entry at {@code p}, tag included. */
    private static int entrySize(byte[] b, int p) {
        int tag = b[p] & 0xff;
        switch (tag) {
            case 1: // Utf8
                return 3 + u2(b, p + 1);
            case 7: // Class
            case 8: // String
            case 16: // MethodType
            case 19: // Module
            case 20: // Package
                return 3;
            case 15: // MethodHandle
                return 4;
            case 3: // Integer
            case 4: // Float
            case 9: // Fieldref
            case 10: // Methodref
            case 11: // InterfaceMethodref
            case 12: // NameAndType
            case 17: // Dynamic
            case 18: // InvokeDynamic
                return 5;
            case 5: // Long
            case 6: // Double
                return 9;
            default:
                throw new IllegalArgumentException("unknown constant pool tag " + tag + " at " + p);
        }
    }

    private static String className(byte[] b, int[] entries, int classIndex) {
        int utf8 = entries[u2(b, entries[classIndex])];
        // Modified UTF-8; the jar's own names are ASCII (checked), so any other name is a JDK type's, not pending.
        return new String(b, utf8 + 2, u2(b, utf8), StandardCharsets.UTF_8);
    }

    private static int u2(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }
}
