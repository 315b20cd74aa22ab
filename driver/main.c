/* main.c — the tssa-stream program: the whole command is tssa_stream_main
 * (tssa-stream.c), so that it can also be called as a function. */
#include "driver/driver.h"

int main(int argc, char **argv)
{
    return tssa_stream_main(argc, argv);
}
