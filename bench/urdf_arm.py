#!/usr/bin/env python3
"""A URDF serial arm of n revolute links (issue 26's speed targets): the
joint axes cycle as bench/models.py's arm does, each link a slender body
of length l along its z axis, its mass centre at l/2, principal inertia.

usage: python3 bench/urdf_arm.py N > armN.urdf"""
import sys

AXES = {"x": "1 0 0", "y": "0 1 0", "z": "0 0 1"}


def urdf_arm(n, order="zyyxyxz"):
    out = ['<?xml version="1.0"?>', f'<robot name="arm{n}">', '  <link name="base"/>']
    parent, length = "base", 0.0
    for i in range(1, n + 1):
        m, l = 1.0 + 0.25 * (i % 4), 0.5 + 0.1 * (i % 3)
        ixx = m * l * l / 12 + 0.01 * i / n
        out += [f'  <link name="L{i}">',
                '    <inertial>',
                f'      <origin xyz="0 0 {l / 2!r}" rpy="0 0 0"/>',
                f'      <mass value="{m!r}"/>',
                f'      <inertia ixx="{ixx!r}" iyy="{ixx + 0.01!r}" izz="{0.01 + 0.001 * i!r}" '
                'ixy="0" ixz="0" iyz="0"/>',
                '    </inertial>',
                '  </link>',
                f'  <joint name="j{i}" type="revolute">',
                f'    <parent link="{parent}"/>',
                f'    <child link="L{i}"/>',
                f'    <origin xyz="0 0 {length!r}" rpy="0 0 0"/>',
                f'    <axis xyz="{AXES[order[(i - 1) % len(order)]]}"/>',
                '    <limit lower="-3" upper="3" effort="100" velocity="10"/>',
                '  </joint>']
        parent, length = f"L{i}", l
    out.append("</robot>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(urdf_arm(int(sys.argv[1])))
