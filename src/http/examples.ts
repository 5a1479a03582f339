// Example values of the OpenAPI document. They tell one story (Ada hires Grace, pays an escrow in
// AVAX, withdraws) so that the examples of different operations agree with each other; every one
// is checked against its schema by the tests.

export const EX = {
  userId: '6b048373bce238a5cbe00a16',
  otherUserId: '6b048374bce238a5cbe00a1f',
  walletId: '6b048373bce238a5cbe00a18',
  coinId: '6b048370bce238a5cbe00a13',
  tokenCoinId: '6b048370bce238a5cbe00a14',
  chainId: '6b048370bce238a5cbe00a12',
  tagId: '6b048361bb429a4777fa640f',
  childTagId: '6b048376bce238a5cbe00a30',
  categoryId: '6b048361bb429a4777fa640d',
  collectionId: '6b0483b4bce238a5cbe00a4f',
  childCollectionId: '6b0483b4bce238a5cbe00a60',
  bookmarkId: '6b048378bce238a5cbe00a50',
  escrowId: '6b0483b5bce238a5cbe00a51',
  withdrawalId: '6b048377bce238a5cbe00a36',
  transactionId: '6b048377bce238a5cbe00a39',
  fileId: '6b04837cbce238a5cbe00a70',
  achievementId: '6b04837dbce238a5cbe00a71',
  created: '2026-11-23T18:18:27.534Z',
  updated: '2026-11-23T18:18:30.449Z',
  later: '2026-11-23T18:19:31.848Z',
  email: 'ada@example.com',
  password: 'Str0ng!pass',
  walletAddress: '0xdAeEc364B382343aFcBbfbc6e9f6Bdd36624BCDC',
  escrowAddress: '0x47277E56e13a719504b21B7E30edF0eA31Aac3bD',
  outsideAddress: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  usdcContract: '0x73511669fd4dE447feD18BB79bAFeAC93aB7F31f',
  txHash: '0xf8baaf62fa55d3f2468aff6876ad043c343216cfef035e8150377fd24aca2e05',
  /** a permanent token (shortened signature) */
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJhY2Nlc3MiLCJpc3MiOiJ3b3JrcGF5Iiwic3ViIjoiNmIwNDgzNzNiY2UyMzhhNWNiZTAwYTE2IiwianRpIjoiNmIwNDgzNzViY2UyMzhhNWNiZTAwYTJkIiwiaWF0IjoxNzk1NDU3OTA5LCJleHAiOjIxMTA4MTc5MDl9.vZVt7aKV6EqQP_J__8jIPoPeK_X47P87_Yob7zY8boA',
  /** a temporary token */
  tempJwt:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0eXAiOiJ0ZW1wIiwicHVycG9zZSI6InZlcmlmeV9lbWFpbCIsImlzcyI6IndvcmtwYXkiLCJzdWIiOiI2YjA0ODM3NWJjZTIzOGE1Y2JlMDBhMmIiLCJqdGkiOiI2YjA0ODM3NWJjZTIzOGE1Y2JlMDBhMmIiLCJpYXQiOjE3OTU0NTc5MDksImV4cCI6MTc5NTQ1ODgwOX0.pbtlah8wbnTAe-7ovhj6XDuFVIOtROHSc6P-q0P8o5E',
  permanentExpiresIn: 2110817909995,
  tempExpiresIn: 1795458809546,
  avaxIcon: 'https://cryptologos.cc/logos/avalanche-avax-logo.png',
  usdcIcon: 'https://cryptologos.cc/logos/usd-coin-usdc-logo.png',
} as const

/** The token object of a temporary token. */
export const exampleTempToken = { token: EX.tempJwt, token_type: 'jwt', expiresIn: EX.tempExpiresIn }
