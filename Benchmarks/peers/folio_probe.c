// Cost of comparing a 61 MB file with a held copy: read()+memcmp vs mmap+memcmp, for a file
// written in one write (large page-cache folios) and one written in 4 KiB writes (4 KiB folios).
// Build: cc -O2 Benchmarks/peers/folio_probe.c -o /tmp/folio_probe; run in an empty directory.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
static double now(){struct timespec t;clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static size_t N=61*1024*1024;
static char *held;
static void mk(const char*p,size_t chunk){int fd=open(p,O_WRONLY|O_CREAT|O_TRUNC,0644);for(size_t o=0;o<N;o+=chunk){size_t n=N-o<chunk?N-o:chunk;write(fd,held+o,n);}close(fd);}
static double viaread(const char*p){static char buf[256*1024];double t=now();int fd=open(p,O_RDONLY);size_t pos=0;ssize_t n;int d=0;while((n=read(fd,buf,sizeof buf))>0){d|=memcmp(buf,held+pos,n);pos+=n;}close(fd);if(d)abort();return now()-t;}
static double viammap(const char*p){double t=now();int fd=open(p,O_RDONLY);char*m=mmap(0,N,PROT_READ,MAP_SHARED|MAP_POPULATE,fd,0);int d=memcmp(m,held,N);munmap(m,N);close(fd);if(d)abort();return now()-t;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(){held=malloc(N);for(size_t i=0;i<N;i++)held[i]="abcdefghij|\n"[i%12];
 mk("big.txt",N); mk("small.txt",4096);
 const char*f[2]={"big.txt","small.txt"};
 for(int k=0;k<2;k++){double r[15],m[15];for(int i=0;i<15;i++){r[i]=viaread(f[k]);m[i]=viammap(f[k]);}
 qsort(r,15,8,cmp);qsort(m,15,8,cmp);printf("%s read+memcmp p50 %.2f ms, mmap+memcmp p50 %.2f ms\n",f[k],r[7],m[7]);}
}
