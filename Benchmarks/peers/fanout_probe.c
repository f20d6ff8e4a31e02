// fanout_probe.c — the C reader used to attribute fan-out latency (docs/BENCHMARKS.md, "Fan-out:
// cold start and 10,000 subscribers"): N subscribers held by this one process, one epoll loop,
// one read() per ready socket, so that next to nothing of the measured time is the reader's.
// Not part of the build or of CI. Build and run against a running booksd:
//   gcc -O2 -o /tmp/fanout_probe Benchmarks/peers/fanout_probe.c
//   /tmp/fanout_probe SOCKET BOOKS_TXT N EDITS IDLE_MS [SNAPSHOT(0|1) [BOOKSD_PID]]
// Per edit (one appended row) it prints when the first and the last subscriber had it (ms after
// close()), and booksd's and its own minor page faults during the edit. `chrt -f 5` in front of
// booksd and this probe takes other load off the measurement.
// Each appended row gets a random (version 4) id: an id made from the edit number and the pid, as
// before, was `00000000-0000-0000-0000-<pid>` for the first edit and duplicated a row of a file
// whose ids count up from 00000000-0000-0000-0000-000000000000 whenever the pid was below the
// row count (pid_max is 32768 here); booksd then kept that row as a `duplicate-id` bad line
// (docs/FORMAT.md) and sent no change, which looked like a first change lost at start-up.
// A mark is also found when it spans two reads (the last bytes of the previous read are kept).
// probe SOCK FILE N EDITS IDLE_MS : N subscribers in one epoll loop; per edit first/last arrival
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/random.h>
static long dpid;static long minflt(void){char p[64],b[4096];snprintf(p,64,"/proc/%ld/stat",dpid);FILE*f=fopen(p,"r");if(!f)return -1;fread(b,1,4095,f);fclose(f);char*q=strrchr(b,')');long v[20];sscanf(q+2,"%*c %ld %ld %ld %ld %ld %ld %ld",&v[0],&v[1],&v[2],&v[3],&v[4],&v[5],&v[6]);return v[6];}
static double now_ms(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static int conn(const char*p){int s=socket(AF_UNIX,SOCK_STREAM,0);struct sockaddr_un a={.sun_family=AF_UNIX};strcpy(a.sun_path,p);if(connect(s,(void*)&a,sizeof a)<0){perror("connect");exit(1);}return s;}
static void newid(char*id){unsigned char b[16];if(getrandom(b,16,0)!=16){perror("getrandom");exit(1);}b[6]=(b[6]&15)|64;b[8]=(b[8]&63)|128;
 snprintf(id,40,"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",b[0],b[1],b[2],b[3],b[4],b[5],b[6],b[7],b[8],b[9],b[10],b[11],b[12],b[13],b[14],b[15]);}
static int readline(int s,char*buf,int cap){int n=0;while(n<cap-1){int r=read(s,buf+n,1);if(r<=0)return -1;if(buf[n]=='\n'){buf[n]=0;return n;}n++;}return n;}
int main(int c,char**v){
 struct rlimit rl;getrlimit(RLIMIT_NOFILE,&rl);rl.rlim_cur=rl.rlim_max;setrlimit(RLIMIT_NOFILE,&rl);
 const char*sock=v[1],*file=v[2];int N=atoi(v[3]),E=atoi(v[4]),idle=atoi(v[5]);int snap=c>6&&atoi(v[6]);dpid=c>7?atol(v[7]):0;
 char line[65536];int s0=conn(sock);
 dprintf(s0,"{\"id\":\"h\",\"op\":\"hello\",\"version\":1}\n");readline(s0,line,sizeof line);
 char*ep=strstr(line,"\"epoch\":\"");char epoch[128];sscanf(ep+9,"%127[^\"]",epoch);long seq=atol(strstr(line,"\"seq\":")+6);close(s0);
 int*fd=malloc(N*sizeof(int));double t0=now_ms();
 for(int k=0;k<N;k++){fd[k]=conn(sock);if(snap)dprintf(fd[k],"{\"id\":\"h\",\"op\":\"hello\",\"version\":1}\n{\"id\":\"s\",\"op\":\"subscribe\"}\n");else dprintf(fd[k],"{\"id\":\"h\",\"op\":\"hello\",\"version\":1}\n{\"id\":\"s\",\"op\":\"subscribe\",\"resume\":{\"epoch\":\"%s\",\"seq\":%ld}}\n",epoch,seq);}
 for(int k=0;k<N;k++){readline(fd[k],line,sizeof line);readline(fd[k],line,sizeof line);if(!strstr(line,"\"ok\":true")){fprintf(stderr,"sub %d: %s\n",k,line);exit(1);}if(snap){static char big[1<<16];while(1){int r=read(fd[k],big,sizeof big);if(r<=0||big[r-1]=='\n')break;}}fcntl(fd[k],F_SETFL,O_NONBLOCK);}
 fprintf(stderr,"joined %d in %.0f ms\n",N,now_ms()-t0);
 int e=epoll_create1(0);for(int k=0;k<N;k++){struct epoll_event ev={.events=EPOLLIN,.data.u32=k};epoll_ctl(e,EPOLL_CTL_ADD,fd[k],&ev);}
 usleep(idle*1000);
 char*seen=calloc(N,1);struct epoll_event evs[1024];enum{CARRY=63};char buf[CARRY+65536];
 char(*tail)[CARRY]=calloc(N,CARRY);unsigned char*tn=calloc(N,1);  // last bytes read per subscriber
 for(int i=0;i<E;i++){
  char mark[64];snprintf(mark,sizeof mark,"mark-%d-%d",i,getpid());int ml=strlen(mark);
  memset(seen,0,N);int got=0;double first=0;long m0=minflt();struct rusage ru0,ru1;getrusage(RUSAGE_SELF,&ru0);
  char id[40];newid(id);int f=open(file,O_WRONLY|O_APPEND);if(f<0){perror("open");exit(1);}char row[256];int rn=snprintf(row,sizeof row,"%s|%s|X\n",id,mark);
  if(write(f,row,rn)!=rn){perror("write");exit(1);}close(f);double t=now_ms();
  while(got<N&&now_ms()-t<30000){int n=epoll_wait(e,evs,1024,50);for(int j=0;j<n;j++){int k=evs[j].data.u32;int c0=tn[k];memcpy(buf,tail[k],c0);
    int r=read(fd[k],buf+c0,65536);if(r<=0)continue;int all=c0+r;
    if(!seen[k]&&memmem(buf,all,mark,ml)){seen[k]=1;got++;if(got==1)first=now_ms()-t;}
    tn[k]=all<CARRY?all:CARRY;memcpy(tail[k],buf+all-tn[k],tn[k]);}}
  double L=now_ms()-t;usleep(5000);getrusage(RUSAGE_SELF,&ru1);printf("edit %d first %.2f last %.2f got %d daemon-minflt %ld client-minflt %ld\n",i,first,L,got,minflt()-m0,ru1.ru_minflt-ru0.ru_minflt);fflush(stdout);
  usleep(50000);
 }
 return 0;}
