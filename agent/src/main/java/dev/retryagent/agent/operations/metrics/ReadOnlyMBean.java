package dev.retryagent.agent.operations.metrics;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.JMException;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.ReflectionException;

/** What the agent's MBeans share: read-only attributes from {@link #getMBeanInfo()}, no operations. */
abstract class ReadOnlyMBean implements DynamicMBean {
    private final MBeanInfo info;

    ReadOnlyMBean(MBeanInfo info) {
        this.info = info;
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList list = new AttributeList();
        for (String name : attributes) {
            try {
                list.add(new Attribute(name, getAttribute(name)));
            } catch (JMException e) {
                // getAttributes leaves out what it cannot read
            }
        }
        return list;
    }

    @Override
    public void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature)
            throws MBeanException, ReflectionException {
        throw new ReflectionException(new NoSuchMethodException(actionName), "no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }
}
