int kbsample_host_only() { return 1; }
