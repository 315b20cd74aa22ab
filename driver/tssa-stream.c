/* Placeholder until the driver lands (same session). */
int main(void) { return 0; }
