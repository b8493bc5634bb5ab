package dev.retryagent.agent.bootloader.weaving;

/**
 * Defines one class from the bytes it is given and asks its parent for every other class. A woven class defined by
 * this ordinary loader goes through the verifier, which checks the code and the frames the weaver wrote.
 */
public final class OneClassLoader extends ClassLoader {
    private final String className;
    private final byte[] classFile;

    public OneClassLoader(ClassLoader parent, String className, byte[] classFile) {
        super(parent);
        this.className = className;
        this.classFile = classFile;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.equals(className)) {
            synchronized (this) {
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, classFile, 0, classFile.length);
            }
        }
        return super.loadClass(name, resolve);
    }
}
