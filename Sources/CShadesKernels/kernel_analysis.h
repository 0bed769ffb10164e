// The analysis kernels (part of kernel_body.h, included once per instruction set).
